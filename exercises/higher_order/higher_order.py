"""Turunan kedua dan Hessian-vector product / Second derivatives and a Hessian-vector product.

ID: Bagian "Higher-Order Gradients": create_graph=True menyimpan graf dari gradien pertama, sehingga
    gradien itu bisa diturunkan lagi. torch.autograd.functional dan torch.func dilarang.
    Jalankan `python -m grader check higher_order` untuk menilai jawabanmu.
EN: The "Higher-Order Gradients" section: create_graph=True keeps a graph of the first gradient,
    so that it can be differentiated again. torch.autograd.functional and torch.func are
    forbidden.
    Run `python -m grader check higher_order` to grade your answer.

Contoh pemakaian / usage:

    second_derivative(torch.tensor([1.0]))      # 6·sin(1) + 6·cos(1) - sin(1)
    hvp(torch.tensor([0.5, -1.0]), torch.tensor([1.0, 0.0]))    # the first column of H

Dilarang (di seluruh file ini), alias privatnya (torch._...) juga /
Forbidden (anywhere in this file), their private aliases (torch._...) too:
    torch.autograd.functional, torch.func.
"""

import torch


def second_derivative(x):
    """ID: f''(x) elemen-per-elemen untuk f(x) = x³·sin(x).
    EN: f''(x) elementwise for f(x) = x³·sin(x).
    """
    raise NotImplementedError("second_derivative belum diimplementasikan / "
                              "second_derivative is not implemented yet")


def hvp(x, v):
    """ID: H·v untuk g(x) = (Σ sin x)·(Σ x²), tanpa membentuk H.
    EN: H·v for g(x) = (Σ sin x)·(Σ x²), without building H.
    """
    raise NotImplementedError("hvp belum diimplementasikan / hvp is not implemented yet")

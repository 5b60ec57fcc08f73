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

Aturan yang dinilai / Rules that are graded:
- ID: Tanpa torch.autograd.functional dan torch.func.
  EN: Without torch.autograd.functional and torch.func.
- ID: hvp(x, v): H·v tanpa membentuk matriks Hessian (N bisa puluhan ribu).
  EN: hvp(x, v): H·v without building the Hessian matrix (N can be tens of thousands).
- ID: Keduanya tidak boleh mengubah x milik pemanggil.
  EN: Neither may change the caller's x.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
- ID: Argumen tensor bisa datang contiguous, transposed atau strided.
  EN: Tensor arguments may arrive contiguous, transposed or strided.
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

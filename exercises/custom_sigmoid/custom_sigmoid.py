"""Latihan 2: custom autograd function untuk sigmoid.

ID: Implementasikan σ(x) = 1 / (1 + e^(-x)) sebagai torch.autograd.Function, seperti MyReLU di
    bagian Custom Autograd Function: forward menghitung σ(x) dan menyimpan tensor yang dibutuhkan
    dengan ctx.save_for_backward, backward mengembalikan grad_output · σ'(x).
    torch.sigmoid (dan sejenisnya) dilarang di file ini: hitung sendiri.
    Jalankan `python -m grader check custom_sigmoid` untuk menilai jawabanmu.
EN: Implement σ(x) = 1 / (1 + e^(-x)) as a torch.autograd.Function, like MyReLU in the section
    Custom Autograd Function: forward computes σ(x) and saves the tensors it needs with
    ctx.save_for_backward, backward returns grad_output · σ'(x).
    torch.sigmoid (and its relatives) are forbidden in this file: compute it yourself.
    Run `python -m grader check custom_sigmoid` to grade your answer.

Contoh pemakaian / usage:

    x = torch.randn(3, requires_grad=True)
    y = sigmoid(x)
    y.sum().backward()
    print(x.grad)          # σ(x)(1 - σ(x))

Dilarang (di seluruh file ini), alias privatnya (torch._...) juga /
Forbidden (anywhere in this file), their private aliases (torch._...) too:
    torch.sigmoid, torch.sigmoid_, torch.Tensor.sigmoid, torch.Tensor.sigmoid_,
    torch.nn.functional.sigmoid, torch.special.expit, torch.nn.Sigmoid,
    torch.nn.functional.logsigmoid, torch.nn.LogSigmoid.

Aturan yang dinilai / Rules that are graded:
- ID: torch.sigmoid, torch.nn.functional.sigmoid, torch.special.expit, nn.Sigmoid dan
      x.sigmoid() dilarang di file ini.
  EN: torch.sigmoid, torch.nn.functional.sigmoid, torch.special.expit, nn.Sigmoid and
      x.sigmoid() are forbidden in this file.
- ID: Hasilnya harus tetap hingga (bukan NaN/inf) untuk |x| sampai 1e4; backward juga tetap
      hingga untuk |x| besar.
  EN: The result must stay finite (no NaN/inf) for |x| up to 1e4; backward is finite for large
      |x| too.
- ID: Simpan tensor yang dibutuhkan backward dengan ctx.save_for_backward, bukan sebagai atribut
      ctx.
  EN: Save the tensors backward needs with ctx.save_for_backward, not as ctx attributes.
- ID: sigmoid(x): kembalikan Sigmoid.apply(x).
  EN: sigmoid(x): return Sigmoid.apply(x).
- ID: Jangan mengubah x milik pemanggil.
  EN: Leave the caller's x as it was.
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


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        """ID: σ(x) elemen-per-elemen, dengan shape dan dtype x; tetap hingga untuk |x| besar
            (sampai 1e4). Simpan tensor untuk backward dengan ctx.save_for_backward.
        EN: σ(x) elementwise, with x's shape and dtype; finite for large |x| (up to 1e4). Save
            the tensors backward needs with ctx.save_for_backward.
        """
        # TODO: hitung y = σ(x) tanpa torch.sigmoid (awas: exp dari bilangan besar menjadi inf)
        # TODO: ctx.save_for_backward(...) dengan tensor yang dibutuhkan backward
        raise NotImplementedError("Sigmoid.forward belum diimplementasikan / "
                                  "Sigmoid.forward is not implemented yet")

    @staticmethod
    def backward(ctx, grad_output):
        """ID: gradien terhadap x: grad_output · σ'(x), dengan σ'(x) = σ(x)(1 - σ(x)).
        EN: the gradient with respect to x: grad_output · σ'(x), where σ'(x) = σ(x)(1 - σ(x)).
        """
        # TODO: ambil tensor yang disimpan dari ctx.saved_tensors, lalu aturan rantai
        raise NotImplementedError("Sigmoid.backward belum diimplementasikan / "
                                  "Sigmoid.backward is not implemented yet")


def sigmoid(x):
    """ID: σ(x) lewat custom function-mu. Jangan mengubah x milik pemanggil.
    EN: σ(x) through your custom Function. Leave the caller's x as it was.
    """
    return Sigmoid.apply(x)

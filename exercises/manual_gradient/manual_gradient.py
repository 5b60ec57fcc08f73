"""Latihan 1: gradien manual dari fungsi kompleks, lalu verifikasi dengan autograd.

ID: Hitung gradien dengan aturan rantai, tanpa autograd, di df, grad_g dan mlp_grads. Setelah itu
    tulis autograd_df yang menghitung turunan yang sama dengan autograd, sebagai verifikasi.
    Jalankan `python -m grader check manual_gradient` untuk menilai jawabanmu.
EN: Compute gradients with the chain rule, without autograd, in df, grad_g and mlp_grads. Then
    write autograd_df, which computes the same derivative with autograd, as a verification.
    Run `python -m grader check manual_gradient` to grade your answer.

Fungsi yang diturunkan / the functions to differentiate (the grader uses its own copies):

    f(x)    = exp(-x²) · sin(3x) + ln(1 + x²) / (1 + e^(-x))
    g(x, y) = x · y² + tanh(x · y)
    L       = mean((relu(x W1ᵀ + b1) W2ᵀ + b2 - y)²)      (mean over all elements)

    x: N x D, W1: H x D, b1: H, W2: O x H, b2: O, y: N x O.

Dilarang (di df, grad_g, mlp_grads), alias privatnya (torch._...) juga /
Forbidden (in df, grad_g, mlp_grads), their private aliases (torch._...) too:
    torch.autograd, torch.func, torch.Tensor.backward, torch.Tensor.requires_grad_,
    torch.Tensor.requires_grad, torch.Tensor.retain_grad.

Aturan yang dinilai / Rules that are graded:
- ID: Di df, grad_g dan mlp_grads tidak boleh ada .backward(), torch.autograd, torch.func atau
      trik requires_grad.
  EN: df, grad_g and mlp_grads may not use .backward(), torch.autograd, torch.func or
      requires_grad tricks.
- ID: autograd_df: pastikan gradien tidak terakumulasi di antara panggilan.
  EN: autograd_df: make sure gradients do not accumulate between calls.
- ID: autograd_df: jangan mengubah x milik pemanggil.
  EN: autograd_df: leave the caller's x as it was.
- ID: Nilai harus tetap hingga di mana pun hasil autograd hingga (termasuk untuk |x| atau |x·y|
      yang besar).
  EN: Values must stay finite wherever autograd's are (large |x| or |x·y| included).
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


def f(x):
    """f(x) = exp(-x²)·sin(3x) + ln(1 + x²)/(1 + e^(-x)), for experimenting."""
    return torch.exp(-x**2) * torch.sin(3 * x) + torch.log(1 + x**2) / (1 + torch.exp(-x))


def df(x):
    """ID: turunan f terhadap x, elemen-per-elemen, tanpa autograd (shape dan dtype seperti x).
    EN: the derivative of f with respect to x, elementwise, without autograd (x's shape and dtype).
    """
    # TODO: aturan perkalian untuk exp(-x²)·sin(3x), lalu ln(1 + x²)·σ(x) dengan σ(x) = 1/(1 + e^(-x))
    raise NotImplementedError("df belum diimplementasikan / df is not implemented yet")


def grad_g(x, y):
    """ID: (dg/dx, dg/dy) dari g(x, y) = x·y² + tanh(x·y), elemen-per-elemen, tanpa autograd.
    EN: (dg/dx, dg/dy) of g(x, y) = x·y² + tanh(x·y), elementwise, without autograd.
    """
    # TODO: turunan tanh(u) adalah 1 - tanh(u)²
    raise NotImplementedError("grad_g belum diimplementasikan / grad_g is not implemented yet")


def mlp_grads(x, y, W1, b1, W2, b2):
    """ID: gradien L terhadap W1, b1, W2, b2 sebagai dict {"W1": ..., "b1": ..., "W2": ..., "b2": ...},
        masing-masing dengan shape parameternya, tanpa autograd. relu'(0) = 0 seperti di PyTorch.
    EN: the gradients of L with respect to W1, b1, W2, b2 as a dict {"W1": ..., ...}, each in
        its parameter's shape, without autograd. relu'(0) = 0, as in PyTorch.
    """
    # TODO: forward (z = x W1ᵀ + b1, h = relu(z), out = h W2ᵀ + b2), lalu mundur dari dL/dout
    raise NotImplementedError("mlp_grads belum diimplementasikan / mlp_grads is not implemented yet")


def autograd_df(x):
    """ID: turunan f yang sama, dihitung dengan autograd. Jangan ubah x milik pemanggil
        (nilai, requires_grad, .grad), dan panggilan berulang harus memberi hasil yang sama.
    EN: the same derivative of f, computed with autograd. Leave the caller's x as it was
        (values, requires_grad, .grad); repeated calls must give the same result.
    """
    # TODO: buat leaf baru yang requires_grad, hitung f, lalu torch.autograd.grad
    raise NotImplementedError("autograd_df belum diimplementasikan / autograd_df is not implemented yet")

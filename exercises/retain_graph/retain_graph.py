"""Dua backward pada satu graf / Two backward passes on one graph.

ID: Bagian "retain_graph": backward kedua pada graf yang sama butuh retain_graph=True pada
    backward pertama, dan gradien di-reset di antaranya.
    Jalankan `python -m grader check retain_graph` untuk menilai jawabanmu.
EN: The "retain_graph" section: a second backward through the same graph needs
    retain_graph=True on the first, and the gradient is reset in between.
    Run `python -m grader check retain_graph` to grade your answer.

Contoh pemakaian / usage:

    grad_twice(torch.tensor([1.0]))     # (tensor([4.]), tensor([4.]))

Aturan yang dinilai / Rules that are graded:
- ID: two_loss_grads: satu forward out = model(x), dua loss pada graf yang sama.
  EN: two_loss_grads: one forward out = model(x), two losses on the same graph.
- ID: Backward kedua pada graf yang sama butuh retain_graph=True pada backward pertama.
  EN: A second backward through the same graph needs retain_graph=True on the first.
- ID: Gradien di-reset di antaranya: masing-masing dihitung sendiri (tidak terakumulasi), juga
      ketika model sudah berisi .grad lama.
  EN: The gradient is reset in between: each is computed on its own (not accumulated), also when
      the model already holds old .grad values.
- ID: x milik pemanggil tidak berubah.
  EN: The caller's x does not change.
- ID: Sesudahnya .grad model berisi gradien loss_b saja.
  EN: Afterwards the model's .grad holds loss_b's gradients only.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
"""

import torch
import torch.nn.functional as F


def grad_twice(x):
    """ID: (grad pertama, grad kedua) dari z = (a²)² pada leaf baru a, dengan retain_graph.
    EN: (the first grad, the second grad) of z = (a²)² on a new leaf a, with retain_graph.
    """
    raise NotImplementedError("grad_twice belum diimplementasikan / grad_twice is not implemented yet")


def two_loss_grads(model, x, target):
    """ID: (grads_a, grads_b) untuk loss_a = F.mse_loss(out, target), loss_b = out.abs().mean()
        dari satu forward out = model(x); setelahnya .grad model = grads_b.
    EN: (grads_a, grads_b) for loss_a = F.mse_loss(out, target), loss_b = out.abs().mean() from
        one forward out = model(x); afterwards the model's .grad = grads_b.
    """
    raise NotImplementedError("two_loss_grads belum diimplementasikan / "
                              "two_loss_grads is not implemented yet")

"""Gradien fungsi loss secara manual / Gradients of loss functions by hand.

ID: Bagian "Dengan Loss Function": loss.backward() mengisi predictions.grad. Di sini hitung
    gradien itu sendiri, tanpa autograd (.backward(), torch.autograd, torch.func dilarang).
    Jalankan `python -m grader check loss_gradients` untuk menilai jawabanmu.
EN: The "Dengan Loss Function" section: loss.backward() fills predictions.grad. Here compute that
    gradient yourself, without autograd (.backward(), torch.autograd, torch.func are forbidden).
    Run `python -m grader check loss_gradients` to grade your answer.

Contoh pemakaian / usage:

    pred = torch.tensor([0.1, 0.9, 0.2]); target = torch.tensor([0.0, 1.0, 0.0])
    mse_grad_mean(pred, target)      # tensor([ 0.0667, -0.0667,  0.1333])

Dilarang (di seluruh file ini), alias privatnya (torch._...) juga /
Forbidden (anywhere in this file), their private aliases (torch._...) too:
    torch.autograd, torch.func, torch.Tensor.backward, torch.Tensor.requires_grad_.

Aturan yang dinilai / Rules that are graded:
- ID: Untuk prediksi dan target dengan shape apa pun (sama satu sama lain).
  EN: For predictions and targets of any shape (the same as each other).
- ID: l1_grad_mean: di titik pred = target pakailah 0, seperti autograd.
  EN: l1_grad_mean: where pred = target use 0, as autograd does.
- ID: .backward(), torch.autograd dan torch.func dilarang.
  EN: .backward(), torch.autograd and torch.func are forbidden.
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


def mse_grad_mean(pred, target):
    """ID: ∂/∂pred dari F.mse_loss(pred, target) (rata-rata atas semua elemen).
    EN: ∂/∂pred of F.mse_loss(pred, target) (the mean over all elements).
    """
    raise NotImplementedError("mse_grad_mean belum diimplementasikan / "
                              "mse_grad_mean is not implemented yet")


def mse_grad_sum(pred, target):
    """ID: ∂/∂pred dari F.mse_loss(pred, target, reduction='sum').
    EN: ∂/∂pred of F.mse_loss(pred, target, reduction='sum').
    """
    raise NotImplementedError("mse_grad_sum belum diimplementasikan / "
                              "mse_grad_sum is not implemented yet")


def l1_grad_mean(pred, target):
    """ID: ∂/∂pred dari mean(|pred - target|); 0 di titik pred = target.
    EN: ∂/∂pred of mean(|pred - target|); 0 where pred = target.
    """
    raise NotImplementedError("l1_grad_mean belum diimplementasikan / "
                              "l1_grad_mean is not implemented yet")

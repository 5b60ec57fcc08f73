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

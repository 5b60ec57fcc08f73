"""Mutant: lets autograd compute the MSE gradient (forbidden). Breaks the rule no_autograd."""

import torch


def mse_grad_mean(pred, target):
    p = pred.detach().clone().requires_grad_(True)
    return torch.autograd.grad(((p - target) ** 2).mean(), p)[0]


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

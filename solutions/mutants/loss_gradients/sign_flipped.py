"""Mutant: differentiates with respect to the target (sign flipped)."""

import torch


def mse_grad_mean(pred, target):
    return 2 * (target - pred) / pred.numel()


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

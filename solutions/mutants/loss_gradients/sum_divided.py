"""Mutant: divides the sum reduction's gradient by n too."""

import torch


def mse_grad_mean(pred, target):
    return 2 * (pred - target) / pred.numel()


def mse_grad_sum(pred, target):
    return 2 * (pred - target) / pred.numel()


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

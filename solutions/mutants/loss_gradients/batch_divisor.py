"""Mutant: divides by the batch size (rows) instead of all elements."""

import torch


def mse_grad_mean(pred, target):
    return 2 * (pred - target) / pred.shape[0]


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

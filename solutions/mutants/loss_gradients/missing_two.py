"""Mutant: forgets the factor 2 of the square's derivative."""

import torch


def mse_grad_mean(pred, target):
    return (pred - target) / pred.numel()


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

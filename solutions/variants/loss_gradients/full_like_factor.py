"""Variant: a tensor of 2/n times the difference; the sum through mul."""

import torch


def mse_grad_mean(pred, target):
    return torch.full_like(pred, 2.0 / max(pred.numel(), 1)) * (pred - target)


def mse_grad_sum(pred, target):
    return (pred - target).mul(2)


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

"""Variant: expanded products and a where for the sign."""

import torch


def mse_grad_mean(pred, target):
    n = max(pred.numel(), 1)
    return (2.0 / n) * pred - (2.0 / n) * target


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    d = pred - target
    s = torch.where(d > 0, 1.0, torch.where(d < 0, -1.0, 0.0)).to(pred.dtype)
    return s / d.numel()

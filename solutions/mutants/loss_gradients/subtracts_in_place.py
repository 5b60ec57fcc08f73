"""Mutant: subtracts the target from the caller's pred in place (pred.sub_) to save memory and
adds it back: the gradient returned is right, but the caller's pred was written (its version
counter moved, and its values may be off by rounding).

Breaks the rule caller_objects.
"""

import torch


def mse_grad_mean(pred, target):
    return 2 * (pred - target) / pred.numel()


def mse_grad_sum(pred, target):
    d = pred.sub_(target).clone()
    pred.add_(target)
    return 2 * d


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

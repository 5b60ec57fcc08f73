"""Mutant: (d >= 0) * 2 - 1 gives 1 where pred = target; autograd gives 0.

Breaks the rule zero_at_kink.
"""

import torch


def mse_grad_mean(pred, target):
    return 2 * (pred - target) / pred.numel()


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    return ((pred - target >= 0).to(pred.dtype) * 2 - 1) / pred.numel()

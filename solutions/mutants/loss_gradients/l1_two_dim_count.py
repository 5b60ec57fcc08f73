"""Mutant: l1_grad_mean divides by pred.shape[0] * pred.shape[1] (N·O), right only for 2-D inputs.

Only the hidden check l1_mean_any_shape catches it: the visible checks leave that open.

Breaks the rule any_shape.
"""

import torch


def mse_grad_mean(pred, target):
    return 2 * (pred - target) / pred.numel()


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    n, o = pred.shape[0], pred.shape[1]
    return torch.sign(pred - target) / (n * o)

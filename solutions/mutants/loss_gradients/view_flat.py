"""Mutant: mse_grad_mean flattens pred and target with .view(-1) and views the result back:
fails on a transposed pred.

Breaks the rule layouts.
"""

import torch


def mse_grad_mean(pred, target):
    g = 2 * (pred.view(-1) - target.view(-1)) / pred.numel()
    return g.view(pred.shape)


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

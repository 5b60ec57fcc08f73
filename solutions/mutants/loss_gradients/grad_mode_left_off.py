"""Mutant: switches grad mode off for the whole program (torch.set_grad_enabled(False) outside
a `with`), since no autograd is needed here, and never switches it back; its values are right.

Breaks the rule global_modes.
"""

import torch


def mse_grad_mean(pred, target):
    return 2 * (pred - target) / pred.numel()


def mse_grad_sum(pred, target):
    torch.set_grad_enabled(False)
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    return torch.sign(pred - target) / pred.numel()

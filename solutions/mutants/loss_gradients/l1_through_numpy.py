"""Mutant: l1_grad_mean written in NumPy (np.sign of pred.numpy() - target.numpy()), right on
a fresh pred; a pred that arrives already requiring grad makes pred.numpy() raise (NumPy
cannot hold a tensor's graph), where the tensor answer just works.

Breaks the rule starting_states.
"""

import numpy as np
import torch


def mse_grad_mean(pred, target):
    return 2 * (pred - target) / pred.numel()


def mse_grad_sum(pred, target):
    return 2 * (pred - target)


def l1_grad_mean(pred, target):
    diff = pred.numpy() - target.numpy()
    return torch.as_tensor(np.sign(diff) / diff.size)

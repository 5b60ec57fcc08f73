"""Trivial mutant: zeroes every gradient and returns max_norm."""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    for p in params:
        if p.grad is not None:
            p.grad.zero_()
    return torch.tensor(float(max_norm), dtype=torch.float64)

"""Trivial mutant: changes nothing, returns zero."""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    return torch.tensor(0.0, dtype=torch.float64)

"""Trivial mutant: zeros."""

import torch


def scaled_mul(x, w, scale):
    return torch.zeros_like(x)

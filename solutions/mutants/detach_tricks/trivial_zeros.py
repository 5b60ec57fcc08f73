"""Trivial mutant: zeros."""

import torch


def round_ste(x):
    return torch.zeros_like(x)


def ema_update(ema, params, decay):
    for e in ema:
        e.zero_()

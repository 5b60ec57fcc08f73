"""Mutant: round_ste works on x.view(-1) and views the result back: a transposed or strided x
cannot be viewed, so round_ste raises on it.

Breaks the rule layouts.
"""

import torch


def round_ste(x):
    flat = x.view(-1)
    return (flat + (torch.round(flat) - flat).detach()).view(x.shape)


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e.mul_(decay).add_(p, alpha=1 - decay)

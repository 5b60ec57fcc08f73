"""Mutant: ema_update switches grad mode off with torch.set_grad_enabled(False) outside a
`with` and never switches it back; the EMA itself is right.

Breaks the rule global_modes.
"""

import torch


def round_ste(x):
    return x + (torch.round(x) - x).detach()


def ema_update(ema, params, decay):
    torch.set_grad_enabled(False)
    if True:
        for e, p in zip(ema, params):
            e.mul_(decay).add_(p, alpha=1 - decay)

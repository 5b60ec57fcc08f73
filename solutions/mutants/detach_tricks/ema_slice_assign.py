"""Mutant: writes the EMA with e[:] = ..., which fails on a scalar (0-dimensional) parameter.

Only the hidden check ema_update_any_shape catches it: the visible checks leave that open.
"""

import torch


def round_ste(x):
    return x + (torch.round(x) - x).detach()


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e[:] = decay * e + (1 - decay) * p

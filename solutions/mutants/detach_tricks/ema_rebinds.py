"""Mutant: e = ... rebinds a local name; the EMA tensors do not change.

Breaks the rule ema_in_place.
"""

import torch


def round_ste(x):
    return x + (torch.round(x) - x).detach()


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e = decay * e + (1 - decay) * p

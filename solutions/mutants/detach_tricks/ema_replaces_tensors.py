"""Mutant: ema_update puts new tensors into the caller's ema list instead of updating the
caller's tensors in place (the list reads right; the tensors the caller holds never move).

Breaks the rule caller_objects.

Breaks the rule ema_in_place.
"""

import torch


def round_ste(x):
    return x + (torch.round(x) - x).detach()


def ema_update(ema, params, decay):
    with torch.no_grad():
        for i, (e, p) in enumerate(zip(ema, params)):
            ema[i] = e * decay + p * (1 - decay)

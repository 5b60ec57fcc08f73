"""Variant: torch.lerp_ under no_grad; the STE written as round(x).detach() + x - x.detach()."""

import torch


def round_ste(x):
    return torch.round(x).detach() + (x - x.detach())


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e.lerp_(p, 1 - decay)

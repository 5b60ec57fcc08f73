"""Mutant: detaches x instead of the residual: the gradient of round (zero)."""

import torch


def round_ste(x):
    return x.detach() + (torch.round(x) - x)


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e.mul_(decay).add_(p, alpha=1 - decay)

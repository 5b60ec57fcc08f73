"""Mutant: weights the new value by decay and the old by 1 - decay."""

import torch


def round_ste(x):
    return x + (torch.round(x) - x).detach()


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e.mul_(1 - decay).add_(p, alpha=decay)

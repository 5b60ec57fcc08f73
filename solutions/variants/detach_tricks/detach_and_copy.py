"""Variant: the rounding residual added after detaching; copy_ of a detached blend."""

import torch


def round_ste(x):
    residual = torch.round(x.detach()) - x.detach()
    return x + residual


def ema_update(ema, params, decay):
    for e, p in zip(ema, params):
        e.copy_(decay * e + (1 - decay) * p.detach())

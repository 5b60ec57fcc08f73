"""Mutant: rounds with floor(x + 0.5), which sends every tie at .5 up (0.5 -> 1, 2.5 -> 3,
-0.5 -> 0) where torch.round goes to the nearest even number (0.5 -> 0, 2.5 -> 2). Only a tie
shows it: the checks name ties as edges, drawn under every seed."""

import torch


def round_ste(x):
    return x + (torch.floor(x + 0.5) - x).detach()


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e.mul_(decay).add_(p, alpha=1 - decay)

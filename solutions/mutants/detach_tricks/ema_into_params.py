"""Mutant: writes the average into the parameters instead of the EMA.

Breaks the rule params_untouched.
"""

import torch


def round_ste(x):
    return x + (torch.round(x) - x).detach()


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            p.mul_(1 - decay).add_(e, alpha=decay)

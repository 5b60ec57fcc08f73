"""Mutant: no no_grad, so the EMA becomes part of the graph.

Breaks the rule ema_no_graph.
"""

import torch


def round_ste(x):
    return x + (torch.round(x) - x).detach()


def ema_update(ema, params, decay):
    for e, p in zip(ema, params):
        e.mul_(decay).add_(p, alpha=1 - decay)

"""Mutant: switches grad mode off for the whole program to update the parameters and never
switches it back (torch.set_grad_enabled(False) outside a `with`).

Breaks the rule global_modes.
"""

import torch


def sgd_step(params, lr):
    torch.set_grad_enabled(False)
    if True:
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

"""Mutant: stops at the first parameter without a .grad (break instead of continue).

Only the hidden check sgd_skips_gradless_first catches it: the visible checks leave that open.
"""

import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is None:
                break
            p -= lr * p.grad
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

"""Mutant: clears the gradients before the update, so nothing moves."""

import torch


def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.grad.zero_()
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

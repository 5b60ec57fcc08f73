"""Mutant: clamp without the underscore returns a new tensor; w is unchanged."""

import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    return w.clamp(-limit, limit)

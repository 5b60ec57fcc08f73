"""Mutant: clamps a detached view; the returned tensor no longer requires grad. Breaks the rule clamp_returns_leaf."""

import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    return w.detach().clamp_(-limit, limit)

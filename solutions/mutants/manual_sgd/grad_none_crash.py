"""Mutant: does not skip parameters without a gradient (TypeError). Breaks the rule skip_without_grad."""

import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

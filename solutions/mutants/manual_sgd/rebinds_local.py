"""Mutant: p = p - lr * p.grad rebinds a local name; the parameters do not change."""

import torch


def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p = p.detach() - lr * p.grad
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

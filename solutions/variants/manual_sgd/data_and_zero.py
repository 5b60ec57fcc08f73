"""Variant: updates through .data and zeroes the gradient in place."""

import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p.data.add_(p.grad, alpha=-lr)
                p.grad.zero_()


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

"""Mutant: puts new tensors into the caller's list instead of updating the caller's tensors
(the list reads right afterwards, but the tensors the caller holds never move).

Breaks the rule caller_objects.
"""

import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is not None:
                params[i] = (p - lr * p.grad).requires_grad_()
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

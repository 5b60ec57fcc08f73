"""Mutant: a right step that leaves a gradient hook registered on the caller's first parameter
(registered through torch.Tensor.register_hook, as a student might to log the gradient): it runs
on every later backward.

Breaks the rule caller_objects."""

import torch


def sgd_step(params, lr):
    seen = []
    for p in params:
        torch.Tensor.register_hook(p, lambda g: seen.append(g.norm()))
        break
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

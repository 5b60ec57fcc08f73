"""Mutant: a = x.clone() without detach: not a new leaf when the caller's x requires grad.

Only the hidden check grad_twice_tracked_input catches it: the visible checks leave that open.
Breaks the rule caller_x_unchanged.
"""

import torch
import torch.nn.functional as F


def grad_twice(x):
    a = x.clone().requires_grad_(True)
    y = a ** 2
    z = y ** 2
    z.sum().backward(retain_graph=True)
    first = a.grad.clone()
    a.grad.zero_()
    z.sum().backward()
    return first, a.grad


def two_loss_grads(model, x, target):
    out = model(x)
    loss_a = F.mse_loss(out, target)
    loss_b = out.abs().mean()
    model.zero_grad()
    loss_a.backward(retain_graph=True)
    grads_a = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    loss_b.backward()
    grads_b = [p.grad.clone() for p in model.parameters()]
    return grads_a, grads_b

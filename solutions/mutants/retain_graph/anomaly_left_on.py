"""Mutant: switches anomaly detection on for the whole program to debug the second backward and
never switches it off (torch.autograd.set_detect_anomaly(True) outside a `with`); the values
stay right.

Breaks the rule global_modes.
"""

import torch
import torch.nn.functional as F


def grad_twice(x):
    torch.autograd.set_detect_anomaly(True)
    a = x.detach().clone().requires_grad_(True)
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

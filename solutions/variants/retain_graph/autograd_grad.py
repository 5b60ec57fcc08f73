"""Variant: torch.autograd.grad with retain_graph, then backward for the model's .grad."""

import torch
import torch.nn.functional as F


def grad_twice(x):
    a = x.detach().clone().requires_grad_(True)
    y = a ** 2
    z = y ** 2
    z.sum().backward(retain_graph=True)
    first = a.grad.detach().clone()
    a.grad = None
    z.sum().backward()
    return first, a.grad


def two_loss_grads(model, x, target):
    out = model(x)
    loss_a = F.mse_loss(out, target)
    loss_b = out.abs().mean()
    params = list(model.parameters())
    grads_a = list(torch.autograd.grad(loss_a, params, retain_graph=True))
    for p in params:
        p.grad = None
    loss_b.backward()
    grads_b = [p.grad.clone() for p in params]
    return grads_a, grads_b

"""Variant: the gradients set to None (not zeroed) before each backward, copies detached."""

import torch.nn.functional as F


def grad_twice(x):
    a = x.detach().clone().requires_grad_(True)
    z = (a * a) ** 2
    z.sum().backward(retain_graph=True)
    first = a.grad.detach().clone()
    a.grad = None
    z.sum().backward()
    return first, a.grad


def two_loss_grads(model, x, target):
    params = list(model.parameters())
    out = model(x)
    loss_a = F.mse_loss(out, target)
    loss_b = out.abs().mean()
    for p in params:
        p.grad = None
    loss_a.backward(retain_graph=True)
    grads_a = [p.grad.detach().clone() for p in params]
    for p in params:
        p.grad = None
    loss_b.backward()
    return grads_a, [p.grad.detach().clone() for p in params]

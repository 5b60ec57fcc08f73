"""Mutant: a second forward for the second loss, where the exercise asks for one forward and
two losses on the same graph: the gradients are the same, only the forward count tells.
Breaks the rule one_forward."""

import torch
import torch.nn.functional as F


def grad_twice(x):
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
    for p in model.parameters():
        p.grad = None
    loss_a.backward()
    grads_a = [p.grad.clone() for p in model.parameters()]
    for p in model.parameters():
        p.grad.zero_()
    model(x).abs().mean().backward()
    grads_b = [p.grad.clone() for p in model.parameters()]
    return grads_a, grads_b

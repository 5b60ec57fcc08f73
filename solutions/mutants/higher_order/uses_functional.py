"""Mutant: torch.autograd.functional.hvp, which is forbidden. Breaks the rule no_functional."""

import torch


def second_derivative(x):
    xx = x.detach().clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    grad1 = torch.autograd.grad(f.sum(), xx, create_graph=True)[0]
    return torch.autograd.grad(grad1.sum(), xx)[0]


def hvp(x, v):
    return torch.autograd.functional.hvp(lambda t: torch.sin(t).sum() * (t ** 2).sum(), x, v)[1]
    xx = x
    g = xx
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad((grad1 * v).sum(), xx)[0]

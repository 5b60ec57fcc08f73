"""Mutant: a hand-derived f'' with a sign error."""

import torch


def second_derivative(x):
    return 6 * x * torch.sin(x) + 6 * x ** 2 * torch.cos(x) + x ** 3 * torch.sin(x)


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad((grad1 * v).sum(), xx)[0]

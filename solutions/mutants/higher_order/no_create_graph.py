"""Mutant: no create_graph: the second grad raises RuntimeError."""

import torch


def second_derivative(x):
    xx = x.detach().clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    grad1 = torch.autograd.grad(f.sum(), xx)[0]
    return torch.autograd.grad(grad1.sum(), xx)[0]


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx)[0]
    return torch.autograd.grad((grad1 * v).sum(), xx)[0]

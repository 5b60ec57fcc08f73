"""Mutant: flattens x with x.view(-1) to work on a vector: fails on a transposed x.

The visible checks catch it, since tensor arguments arrive transposed and strided by default.

Breaks the rule layouts.
"""

import torch


def second_derivative(x):
    xx = x.detach().view(-1).clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    grad1 = torch.autograd.grad(f.sum(), xx, create_graph=True)[0]
    return torch.autograd.grad(grad1.sum(), xx)[0].view(x.shape)


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad((grad1 * v).sum(), xx)[0]

"""Mutant: hvp marks the caller's x with x.requires_grad_() and differentiates it directly
instead of a new leaf; its values are right, but the caller's x now requires grad.

Breaks the rule leaves_x. Breaks the rule caller_objects.
"""

import torch


def second_derivative(x):
    xx = x.detach().clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    grad1 = torch.autograd.grad(f.sum(), xx, create_graph=True)[0]
    return torch.autograd.grad(grad1.sum(), xx)[0]


def hvp(x, v):
    xx = x.requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad((grad1 * v).sum(), xx)[0]

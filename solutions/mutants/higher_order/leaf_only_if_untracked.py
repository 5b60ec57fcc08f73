"""Mutant: second_derivative makes a new leaf only when x does not require grad yet, and takes
the second derivative with backward(); a caller's x that already requires grad is used as it
is, so backward() adds to its old .grad and the result holds it too (right on a fresh x).

Breaks the rule starting_states.
"""

import torch


def second_derivative(x):
    if not x.requires_grad:
        x = x.detach().clone().requires_grad_(True)
    f = x ** 3 * torch.sin(x)
    grad1 = torch.autograd.grad(f.sum(), x, create_graph=True)[0]
    grad1.sum().backward()
    return x.grad


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad((grad1 * v).sum(), xx)[0]

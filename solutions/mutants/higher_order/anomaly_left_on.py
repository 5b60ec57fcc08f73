"""Mutant: switches anomaly detection on for the whole program (outside a `with`) to debug the
second derivative and never switches it off; its values are right.

Breaks the rule global_modes.
"""

import torch


def second_derivative(x):
    torch.autograd.set_detect_anomaly(True)
    xx = x.detach().clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    grad1 = torch.autograd.grad(f.sum(), xx, create_graph=True)[0]
    return torch.autograd.grad(grad1.sum(), xx)[0]


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad((grad1 * v).sum(), xx)[0]

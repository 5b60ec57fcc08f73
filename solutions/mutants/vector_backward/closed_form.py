"""Mutant: the Jacobian from its formula, J = diag(1 - tanh(x)²)·Σx + tanh(x)·1ᵀ, with no
backward at all: the values and dtype are right, but no row is a vector-Jacobian product.

Breaks the rule row_by_row.
"""

import torch


def vector_grad(x, v):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.sin(xx) * xx ** 2
    y.backward(v)
    return xx.grad


def jacobian(x):
    t = torch.tanh(x.detach())
    n = x.shape[0]
    return torch.diag(1 - t**2) * x.detach().sum() + t[:, None] * torch.ones(n, dtype=x.dtype)

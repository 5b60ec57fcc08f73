"""Mutant: fills a Jacobian preallocated with a hard-coded dtype=torch.float64, not x's dtype.

Only the hidden check jacobian_float32 catches it: the visible checks leave that open.

Breaks the rule x_dtype.
"""

import torch


def vector_grad(x, v):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.sin(xx) * xx ** 2
    y.backward(v)
    return xx.grad


def jacobian(x):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.tanh(xx) * xx.sum()
    n = y.shape[0]
    J = torch.zeros(n, n, dtype=torch.float64)
    for i in range(n):
        e = torch.zeros_like(y)
        e[i] = 1
        J[i] = torch.autograd.grad(y, xx, grad_outputs=e, retain_graph=True)[0]
    return J

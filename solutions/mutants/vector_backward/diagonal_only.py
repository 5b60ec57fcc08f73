"""Mutant: treats g as elementwise: the diagonal of one backward with ones."""

import torch


def vector_grad(x, v):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.sin(xx) * xx ** 2
    y.backward(v)
    return xx.grad


def jacobian(x):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.tanh(xx) * xx.sum()
    g = torch.autograd.grad(y, xx, grad_outputs=torch.ones_like(y))[0]
    return torch.diag(g)

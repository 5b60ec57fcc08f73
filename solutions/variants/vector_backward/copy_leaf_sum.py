"""Variant: a leaf from empty_like + copy_ of x cut from the caller's graph (copy_ of an x that
requires grad would record the copy: no leaf); backward through (y * v).sum(), v detached
as well (the caller's v may require grad)."""

import torch


def vector_grad(x, v):
    xx = torch.empty_like(x).copy_(x.detach()).requires_grad_(True)
    y = torch.sin(xx) * xx ** 2
    (y * v.detach()).sum().backward()  # v may require grad too: its .grad stays the caller's
    return xx.grad


def jacobian(x):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.tanh(xx) * xx.sum()
    rows = []
    for i in range(y.shape[0]):
        e = torch.zeros_like(y)
        e[i] = 1
        rows.append(torch.autograd.grad(y, xx, grad_outputs=e, retain_graph=True)[0])
    return torch.stack(rows)

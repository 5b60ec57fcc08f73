"""Mutant: vector_grad flattens x with x.view(-1) to work on a vector and views the gradient
back: fails on a transposed x.

Breaks the rule layouts.
"""

import torch


def vector_grad(x, v):
    xx = x.detach().view(-1).clone().requires_grad_(True)
    y = torch.sin(xx) * xx ** 2
    y.backward(v.reshape(-1))
    return xx.grad.view(x.shape)


def jacobian(x):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.tanh(xx) * xx.sum()
    rows = []
    for i in range(y.shape[0]):
        e = torch.zeros_like(y)
        e[i] = 1
        rows.append(torch.autograd.grad(y, xx, grad_outputs=e, retain_graph=True)[0])
    return torch.stack(rows)

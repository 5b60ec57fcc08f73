"""Mutant: torch.autograd.functional.jacobian, which is forbidden.

Breaks the rule no_functional.
"""

import torch


def vector_grad(x, v):
    xx = x.detach().clone().requires_grad_(True)
    y = torch.sin(xx) * xx ** 2
    y.backward(v)
    return xx.grad


def jacobian(x):
    return torch.autograd.functional.jacobian(lambda t: torch.tanh(t) * t.sum(), x)
    rows = []
    for i in range(y.shape[0]):
        e = torch.zeros_like(y)
        e[i] = 1
        rows.append(torch.autograd.grad(y, xx, grad_outputs=e, retain_graph=True)[0])
    return torch.stack(rows)

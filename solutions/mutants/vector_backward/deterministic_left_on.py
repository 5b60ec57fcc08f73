"""Mutant: turns on deterministic algorithms for the whole program "for reproducible gradients"
(torch.use_deterministic_algorithms(True)) and never turns them off; its values are right.

Breaks the rule global_modes.
"""

import torch


def vector_grad(x, v):
    torch.use_deterministic_algorithms(True)
    xx = x.detach().clone().requires_grad_(True)
    y = torch.sin(xx) * xx ** 2
    y.backward(v)
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

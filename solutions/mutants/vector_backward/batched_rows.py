"""Mutant: every row of the Jacobian in one batched backward (torch.autograd.grad with the
identity's rows as grad_outputs and is_grads_batched=True): the values and dtype are right, but
it is one backward for all rows, not one per row.

Breaks the rule row_by_row.
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
    eye = torch.eye(y.shape[0], dtype=y.dtype)
    return torch.autograd.grad(y, xx, grad_outputs=eye, is_grads_batched=True)[0]

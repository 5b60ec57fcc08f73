"""Mutant: makes its leaf with x.clone() without detach(). For an x that does not require grad
the clone is a new leaf and every result is right; for the caller's x that already requires
grad (with an old .grad) the clone is no leaf: backward writes into the caller's x.grad and the
returned xx.grad is None. Caught since tensor arguments are also drawn in that starting state.

Breaks the rule starting_states. Breaks the rule new_leaf.
"""

import torch


def vector_grad(x, v):
    xx = x.clone().requires_grad_(True)
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

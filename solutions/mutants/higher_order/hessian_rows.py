"""Mutant: builds the Hessian row by row (one autograd.grad per component of grad1), then H @ v:
the value is right, but it takes N backward passes and N² numbers.

The large-N check hvp_no_hessian catches it by its cost. Breaks the rule no_hessian.
"""

import torch


def second_derivative(x):
    xx = x.detach().clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    grad1 = torch.autograd.grad(f.sum(), xx, create_graph=True)[0]
    return torch.autograd.grad(grad1.sum(), xx)[0]


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    rows = [torch.autograd.grad(grad1[i], xx, retain_graph=True)[0] for i in range(len(xx))]
    return torch.stack(rows) @ v

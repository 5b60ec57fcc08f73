"""Variant: grad_outputs=ones instead of .sum(); the HVP through a dot product."""

import torch


def second_derivative(x):
    xx = x.detach().clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    grad1, = torch.autograd.grad(f, xx, grad_outputs=torch.ones_like(f), create_graph=True)
    second, = torch.autograd.grad(grad1, xx, grad_outputs=torch.ones_like(grad1))
    return second


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad(torch.dot(grad1, v), xx)[0]

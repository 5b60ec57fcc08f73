"""Variant: backward(create_graph=True) and .grad, the HVP with grad_outputs=v."""

import torch


def second_derivative(x):
    xx = x.detach().clone().requires_grad_(True)
    f = xx ** 3 * torch.sin(xx)
    f.sum().backward(create_graph=True)
    grad1 = xx.grad
    xx.grad = None
    grad1.sum().backward()
    return xx.grad.detach()


def hvp(x, v):
    xx = x.detach().clone().requires_grad_(True)
    g = torch.sin(xx).sum() * (xx ** 2).sum()
    grad1 = torch.autograd.grad(g, xx, create_graph=True)[0]
    return torch.autograd.grad(grad1, xx, grad_outputs=v)[0]

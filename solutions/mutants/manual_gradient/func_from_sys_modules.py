"""Mutant: grad_g takes torch.func.grad from sys.modules, under the module that defines it
(torch._functorch.apis).

Breaks the rule no_autograd_manual.
"""

import torch
import sys


def f(x):
    return torch.exp(-x**2) * torch.sin(3 * x) + torch.log(1 + x**2) / (1 + torch.exp(-x))


def df(x):
    e = torch.exp(-x**2)
    s = torch.sigmoid(x)
    du = e * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))
    dv = 2 * x / (1 + x**2) * s + torch.log(1 + x**2) * s * (1 - s)
    return du + dv


def grad_g(x, y):
    grad = sys.modules["torch._functorch.apis"].grad

    def g(a, b):
        return (a * b**2 + torch.tanh(a * b)).sum()

    return grad(g, argnums=(0, 1))(x, y)


def mlp_grads(x, y, W1, b1, W2, b2):
    z = x @ W1.T + b1
    h = torch.relu(z)
    out = h @ W2.T + b2
    dout = 2 * (out - y) / out.numel()
    dz = (dout @ W2) * (z > 0).to(x.dtype)
    return {"W1": dz.T @ x, "b1": dz.sum(0), "W2": dout.T @ h, "b2": dout.sum(0)}


def autograd_df(x):
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(f(leaf).sum(), leaf)
    return grad

"""Mutant: grad_g makes its leaves as nn.Parameter and runs backward from a string given to exec.

Breaks the rule no_autograd_manual.
"""

import torch


def f(x):
    return torch.exp(-x**2) * torch.sin(3 * x) + torch.log(1 + x**2) / (1 + torch.exp(-x))


def df(x):
    e = torch.exp(-x**2)
    s = torch.sigmoid(x)
    du = e * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))
    dv = 2 * x / (1 + x**2) * s + torch.log(1 + x**2) * s * (1 - s)
    return du + dv


def grad_g(x, y):
    xx, yy = torch.nn.Parameter(x.clone()), torch.nn.Parameter(y.clone())
    with torch.enable_grad():
        out = (xx * yy**2 + torch.tanh(xx * yy)).sum()
        exec("out." + "back" + "ward()", {"out": out})
    return xx.grad.detach(), yy.grad.detach()


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

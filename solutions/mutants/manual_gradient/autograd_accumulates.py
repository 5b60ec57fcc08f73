"""Mutant: autograd_df marks x and calls backward() on it, so a second call on the same x returns the accumulated gradient.

It marks the caller's own x too. Breaks the rule no_accumulation. Breaks the rule
leave_caller_x. Breaks the rule caller_objects.
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
    sech2 = 1 - torch.tanh(x * y) ** 2
    return y**2 + sech2 * y, 2 * x * y + sech2 * x


def mlp_grads(x, y, W1, b1, W2, b2):
    z = x @ W1.T + b1
    h = torch.relu(z)
    out = h @ W2.T + b2
    dout = 2 * (out - y) / out.numel()
    dz = (dout @ W2) * (z > 0).to(x.dtype)
    return {"W1": dz.T @ x, "b1": dz.sum(0), "W2": dout.T @ h, "b2": dout.sum(0)}


def autograd_df(x):
    x.requires_grad_(True)
    with torch.enable_grad():
        f(x).sum().backward()
    return x.grad.detach().clone()

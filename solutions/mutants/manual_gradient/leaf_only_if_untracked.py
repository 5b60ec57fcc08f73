"""Mutant: autograd_df makes a new leaf only when x does not require grad yet; a caller's x
that already requires grad is used as it is, so backward() adds to its old .grad and the
returned gradient holds it too (right on a fresh x).

Breaks the rule starting_states.
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
    if not x.requires_grad:
        x = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        f(x).sum().backward()
    return x.grad

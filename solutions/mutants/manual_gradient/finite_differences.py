"""Mutant: every derivative by central finite differences (close, but not exact)."""

import torch

H = 1e-6


def f(x):
    return torch.exp(-x**2) * torch.sin(3 * x) + torch.log(1 + x**2) / (1 + torch.exp(-x))


def df(x):
    return (f(x + H) - f(x - H)) / (2 * H)


def grad_g(x, y):
    g = lambda a, b: a * b**2 + torch.tanh(a * b)  # noqa: E731
    return (g(x + H, y) - g(x - H, y)) / (2 * H), (g(x, y + H) - g(x, y - H)) / (2 * H)


def mlp_grads(x, y, W1, b1, W2, b2):
    params = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}

    def loss():
        return ((torch.relu(x @ params["W1"].T + params["b1"]) @ params["W2"].T
                 + params["b2"] - y) ** 2).mean()

    grads = {}
    for name, p in params.items():
        g = torch.zeros_like(p)
        flat, gflat = p.reshape(-1), g.reshape(-1)
        for i in range(flat.numel()):
            old = flat[i].item()
            params[name] = p.clone().reshape(-1)
            params[name][i] = old + H
            params[name] = params[name].reshape(p.shape)
            up = loss()
            params[name] = p.clone().reshape(-1)
            params[name][i] = old - H
            params[name] = params[name].reshape(p.shape)
            down = loss()
            gflat[i] = (up - down) / (2 * H)
        params[name] = p
        grads[name] = g
    return grads


def autograd_df(x):
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(f(leaf).sum(), leaf)
    return grad

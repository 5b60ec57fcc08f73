"""Variant: the norm as sqrt(sum of squares + 1e-12); the epsilon keeps its backward finite."""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    n = real.shape[0]
    a = alpha.reshape(n, *([1] * (real.dim() - 1))).expand_as(real)
    x_hat = (a * real + (1 - a) * fake).detach().requires_grad_(True)
    out = critic(x_hat)
    g = torch.autograd.grad(out, x_hat, torch.ones_like(out), create_graph=True)[0]
    norms = torch.sqrt(torch.sum(g.reshape(n, -1) ** 2, dim=1) + 1e-12)
    return lam * ((norms - 1) ** 2).mean()

"""Mutant: grad_outputs of shape (N, 1) hard-coded, which fails for critics that return (N,)."""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    x_hat = (a * real + (1 - a) * fake).detach().requires_grad_(True)
    out = critic(x_hat)
    ones = torch.ones(real.shape[0], 1, dtype=real.dtype)
    (g,) = torch.autograd.grad(out, x_hat, grad_outputs=ones, create_graph=True)
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

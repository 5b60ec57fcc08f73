"""Mutant: interpolates on real.view(N, -1) and fake.view(N, -1), then views x̂ back: a
transposed or strided real or fake cannot be viewed, so the call raises on it.

Breaks the rule layouts.
"""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    n, a = real.shape[0], alpha.reshape(-1, 1)
    flat = a * real.view(n, -1) + (1 - a) * fake.view(n, -1)
    x_hat = flat.view(real.shape).detach().requires_grad_(True)
    with torch.enable_grad():
        out = critic(x_hat)
        (g,) = torch.autograd.grad(out, x_hat, grad_outputs=torch.ones_like(out),
                                   create_graph=True)
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

"""Mutant: sets the default dtype to float64 for the whole program ("everything is float64
anyway") and never sets it back; the penalty stays right.

Breaks the rule global_modes.
"""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    torch.set_default_dtype(torch.float64)
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    x_hat = (a * real + (1 - a) * fake).detach().requires_grad_(True)
    with torch.enable_grad():
        out = critic(x_hat)
        (g,) = torch.autograd.grad(out, x_hat, grad_outputs=torch.ones_like(out),
                                   create_graph=True)
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

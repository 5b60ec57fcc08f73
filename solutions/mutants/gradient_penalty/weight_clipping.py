"""Mutant: WGAN weight clipping mixed into the penalty: changes the caller's critic in place.

Breaks the rule leave_arguments.
"""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    with torch.no_grad():
        for p in critic.parameters():
            p.clamp_(-0.5, 0.5)
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    x_hat = (a * real + (1 - a) * fake).detach().requires_grad_(True)
    out = critic(x_hat)
    (g,) = torch.autograd.grad(out, x_hat, grad_outputs=torch.ones_like(out), create_graph=True)
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

"""Mutant: backward inside, then critic.zero_grad() to hide it: wipes the caller's gradients.

Breaks the rule no_grad_writes.
"""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    x_hat = (a * real + (1 - a) * fake).detach().requires_grad_(True)
    critic(x_hat).sum().backward(create_graph=True)
    g = x_hat.grad
    critic.zero_grad()
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

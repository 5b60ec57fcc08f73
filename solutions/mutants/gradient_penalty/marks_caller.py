"""Mutant: requires_grad_() on the caller's real and fake, to make x̂ differentiable.

Breaks the rule leave_arguments. Breaks the rule caller_objects.
"""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    real.requires_grad_(True)
    fake.requires_grad_(True)
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    x_hat = a * real + (1 - a) * fake
    out = critic(x_hat)
    (g,) = torch.autograd.grad(out, x_hat, grad_outputs=torch.ones_like(out), create_graph=True)
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

"""Mutant: x̂ is built in place in the caller's real tensor.

Breaks the rule leave_arguments.
"""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    real.mul_(a).add_((1 - a) * fake)
    x_hat = real.detach().clone().requires_grad_(True)
    out = critic(x_hat)
    (g,) = torch.autograd.grad(out, x_hat, grad_outputs=torch.ones_like(out), create_graph=True)
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

"""Mutant: makes sure the critic "can be differentiated" by switching requires_grad on for
every parameter: a layer the caller froze is no longer frozen.

Breaks the rule leave_arguments.
"""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    for p in critic.parameters():
        p.requires_grad_(True)
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    x_hat = (a * real + (1 - a) * fake).detach().requires_grad_(True)
    out = critic(x_hat)
    (g,) = torch.autograd.grad(out, x_hat, grad_outputs=torch.ones_like(out), create_graph=True)
    norms = g.reshape(g.shape[0], -1).norm(2, dim=1)
    return lam * ((norms - 1) ** 2).mean()

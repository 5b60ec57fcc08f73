"""Variant: one sample at a time (the critics have no batch statistics), then the mean."""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    terms = []
    for i in range(real.shape[0]):
        x = (alpha[i] * real[i] + (1 - alpha[i]) * fake[i]).detach().unsqueeze(0)
        x.requires_grad_(True)
        out = critic(x)
        (g,) = torch.autograd.grad(out.sum(), x, create_graph=True)
        terms.append((g.norm() - 1) ** 2)
    return lam * torch.stack(terms).mean()

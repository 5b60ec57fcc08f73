"""Variant: torch.lerp for the interpolation, grad_outputs of ones, the common WGAN-GP layout."""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    weight = alpha[(...,) + (None,) * (real.dim() - 1)]
    interpolates = torch.lerp(fake.detach(), real.detach(), weight).requires_grad_()
    scores = critic(interpolates)
    gradients = torch.autograd.grad(
        outputs=scores,
        inputs=interpolates,
        grad_outputs=torch.ones(scores.size(), dtype=scores.dtype),
        create_graph=True,
        retain_graph=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * lam

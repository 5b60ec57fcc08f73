"""Variant: out.sum() as the scalar to differentiate, flatten(1) and Tensor.norm per sample."""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    shape = [real.shape[0]] + [1] * (real.dim() - 1)
    a = alpha.view(shape)
    x_hat = a * real.detach() + (1 - a) * fake.detach()
    x_hat.requires_grad_(True)
    g = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)[0]
    return lam * (g.flatten(1).norm(2, dim=1) - 1).pow(2).mean()

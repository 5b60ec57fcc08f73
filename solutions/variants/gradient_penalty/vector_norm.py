"""Variant: torch.linalg.vector_norm over every non-batch dimension, no reshape of g."""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    a = alpha.reshape((-1,) + (1,) * (real.dim() - 1))
    x_hat = (real * a + fake * (1 - a)).detach()
    x_hat.requires_grad = True
    out = critic(x_hat)
    (g,) = torch.autograd.grad([out], [x_hat], [torch.ones_like(out)], create_graph=True)
    norms = torch.linalg.vector_norm(g, ord=2, dim=tuple(range(1, g.dim())))
    return lam * torch.mean(torch.square(norms - 1))

"""Mutant: clips every parameter by its own norm."""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
    total = torch.linalg.vector_norm(norms, norm_type)
    for g, n in zip(grads, norms):
        g.mul_(torch.clamp(max_norm / (n + 1e-6), max=1.0))
    return total

"""Variant: explicit loops under no_grad; p.grad reassigned with a scaled copy."""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = torch.stack([g.abs().max() if norm_type == float('inf') else g.norm(2) for g in grads])
    total = torch.linalg.vector_norm(norms, norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p.grad = p.grad * coef
    return total

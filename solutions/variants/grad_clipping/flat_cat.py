"""Variant: one flat vector of all gradients; a Python-level coefficient."""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    flat = torch.cat([g.reshape(-1) for g in grads])
    if norm_type == float('inf'):
        total = flat.abs().max()
    else:
        total = flat.pow(2).sum().sqrt()
    coef = max_norm / (total + 1e-6)
    if coef < 1:
        for g in grads:
            g.mul_(coef)
    return total

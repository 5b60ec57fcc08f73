"""Mutant: switches the parameters' requires_grad off "so that their .grad may be edited" and
never switches it back: the gradients and the norm are right, but the caller's parameters are
frozen afterwards.

Breaks the rule caller_objects.
"""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    for p in params:
        p.requires_grad_(False)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
    total = torch.linalg.vector_norm(norms, norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)
    return total

"""Mutant: does not skip parameters without a gradient.

Breaks the rule skip_without_grad.
"""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    grads = [p.grad for p in params]
    if not grads:
        return torch.tensor(0.0)
    norms = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
    total = torch.linalg.vector_norm(norms, norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)
    return total

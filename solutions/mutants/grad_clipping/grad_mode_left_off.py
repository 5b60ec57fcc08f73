"""Mutant: switches grad mode off for the whole program before scaling the gradients and never
switches it back (torch.set_grad_enabled(False) outside a `with`); the values stay right.

Breaks the rule global_modes.
"""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    torch.set_grad_enabled(False)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norms = torch.stack([torch.linalg.vector_norm(g, norm_type) for g in grads])
    total = torch.linalg.vector_norm(norms, norm_type)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)
    return total

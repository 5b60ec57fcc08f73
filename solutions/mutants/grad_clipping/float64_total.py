"""Mutant: sums the norm in Python floats and returns torch.tensor(total, dtype=torch.float64).

Only the hidden check clip_float32 catches it: the visible checks leave that open.
Breaks the rule total_before_clipping.
"""

import math

import torch


def clip_grad_norm(params, max_norm, norm_type):
    grads = [p.grad for p in params if p.grad is not None]
    if norm_type == float("inf"):
        total = max((float(g.abs().max()) for g in grads), default=0.0)
    else:
        total = math.sqrt(sum(float((g * g).sum()) for g in grads))
    coef = min(1.0, max_norm / (total + 1e-6))
    for g in grads:
        g.mul_(coef)
    return torch.tensor(total, dtype=torch.float64)

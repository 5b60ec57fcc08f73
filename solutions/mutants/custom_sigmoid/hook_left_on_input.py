"""Mutant: the key, but it leaves a hook on the caller's x (to watch the gradient while
debugging), never removed: every later backward of the caller's runs it.

Breaks the rule caller_objects.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        # z = e^(-|x|) lies in (0, 1]: no overflow for any x. σ(x) = 1/(1 + z) for x ≥ 0 and
        # z/(1 + z) for x < 0.
        z = torch.exp(-x.abs())
        y = torch.where(x >= 0, 1 / (1 + z), z / (1 + z))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        # σ'(x) = σ(x)(1 - σ(x)), from the saved output: finite everywhere, and differentiable
        # again for double backward.
        return grad_output * y * (1 - y)


def sigmoid(x):
    if x.requires_grad:
        x.register_hook(lambda g: g)  # to print g while debugging; the handle is dropped
    return Sigmoid.apply(x)

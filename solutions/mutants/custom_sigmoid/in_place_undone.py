"""Mutant: clamps x in place for the computation and writes the original values back: the
caller's x ends with its values, but it was changed in place (its version counter moved).

Breaks the rule leaves_x. Breaks the rule caller_objects.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        z = torch.exp(-x.abs())
        y = torch.where(x >= 0, 1 / (1 + z), z / (1 + z))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    with torch.no_grad():
        kept = x.clone()
        x.clamp_(-50, 50)
        y = Sigmoid.apply(x.clone())
        x.copy_(kept)
    return Sigmoid.apply(x)

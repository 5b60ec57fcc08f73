"""Mutant: clamps the caller's x in place (x.clamp_) to avoid overflow.

Breaks the rule leaves_x.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.clamp_(-30, 30)
        y = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

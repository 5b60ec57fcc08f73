"""Mutant: forward as e^x/(1 + e^x): inf/inf = NaN for large positive x.

Breaks the rule finite_large_x.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        e = torch.exp(x)
        y = e / (1 + e)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

"""Mutant: backward recomputes σ'(x) = e^(-x)/(1 + e^(-x))² from the input: inf/inf = NaN for
very negative x.

Breaks the rule finite_large_x.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 1 / (1 + torch.exp(-x))

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        e = torch.exp(-x)
        return grad_output * e / (1 + e) ** 2


def sigmoid(x):
    return Sigmoid.apply(x)

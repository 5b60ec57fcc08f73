"""Mutant: keeps the output as a ctx attribute instead of ctx.save_for_backward.

Breaks the rule save_for_backward.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = 1 / (1 + torch.exp(-x))
        ctx.y = y
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y = ctx.y
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

"""Flattens with x.view(-1) to work on a vector: fails on a transposed or strided x.

Breaks the rule layouts.
"""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        flat = x.view(-1)
        z = torch.exp(-flat.abs())
        y = torch.where(flat >= 0, 1 / (1 + z), z / (1 + z)).view(x.shape)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

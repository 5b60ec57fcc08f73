"""Variant: σ(x) = (1 + tanh(x/2)) / 2, output saved."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = 0.5 * (1 + torch.tanh(x / 2))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * (y - y * y)


def sigmoid(x):
    return Sigmoid.apply(x)

"""Mutant: backward sums the gradient to a scalar instead of returning one per element."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = 1 / (1 + torch.exp(-x))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return (grad_output * y * (1 - y)).sum()


def sigmoid(x):
    return Sigmoid.apply(x)

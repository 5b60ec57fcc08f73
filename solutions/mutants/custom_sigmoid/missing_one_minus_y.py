"""Mutant: backward forgets the (1 - y) factor of σ'(x) = y(1 - y)."""

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
        return grad_output * y


def sigmoid(x):
    return Sigmoid.apply(x)

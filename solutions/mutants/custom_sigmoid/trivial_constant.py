"""Trivial: a constant 0.5 (σ(0)) with a zero gradient, through a Function."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.full_like(x, 0.5)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 0


def sigmoid(x):
    return Sigmoid.apply(x)

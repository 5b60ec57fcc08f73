"""Variant: the newer style, forward without ctx plus setup_context (torch >= 2.0)."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.reciprocal(1 + torch.exp(-x))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

"""Mutant: backward returns σ'(x) without multiplying by grad_output (right only for ones)."""

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
        return y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

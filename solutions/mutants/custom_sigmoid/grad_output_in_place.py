"""Mutant: backward multiplies grad_output in place (grad_output.mul_): the values returned
are right, but the tensor autograd handed over is changed."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        z = torch.exp(-x.abs())
        y = torch.where(x >= 0, 1 / (1 + z), z / (1 + z))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output.mul_(y * (1 - y))


def sigmoid(x):
    return Sigmoid.apply(x)

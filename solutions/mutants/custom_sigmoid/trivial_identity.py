"""Trivial: an identity Function (forward returns x, backward passes grad_output through)."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def sigmoid(x):
    return Sigmoid.apply(x)

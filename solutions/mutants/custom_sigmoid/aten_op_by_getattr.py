"""Mutant: torch's sigmoid kernel called as an operator, torch.ops.aten.sigmoid, its name built
at run time. Breaks the rule no_builtin_sigmoid."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = getattr(torch.ops.aten, "sig" + "moid")(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

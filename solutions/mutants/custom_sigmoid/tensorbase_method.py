"""Mutant: sigmoid as the C method of torch._C.TensorBase, spelled through getattr: the same
kernel as x.sigmoid(). Breaks the rule no_builtin_sigmoid."""

import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = getattr(getattr(torch, "_" + "C").TensorBase, "sigmoid")(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)

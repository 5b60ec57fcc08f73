"""Sigmoid implementations, right and wrong, as custom autograd Functions for the kind tests."""

from __future__ import annotations

import torch


def function(forward, backward, save=True):
    """sigmoid(x) through an autograd.Function with this forward y = f(x) and backward
    (grad_output, y, x) -> gradient; save=False stashes y and x on ctx instead."""

    class Sigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = forward(x)
            if save:
                ctx.save_for_backward(y, x)
            else:
                ctx.y, ctx.x = y, x
            return y

        @staticmethod
        def backward(ctx, grad_output):
            y, x = ctx.saved_tensors if save else (ctx.y, ctx.x)
            return backward(grad_output, y, x)

    return Sigmoid.apply


def plain(x):
    return 1 / (1 + torch.exp(-x))


def right(g, y, x):
    return g * y * (1 - y)


def no_grad(g, y, x):
    with torch.no_grad():
        return g * y * (1 - y)


GOOD = function(plain, right)

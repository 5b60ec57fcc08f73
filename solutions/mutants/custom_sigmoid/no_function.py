"""Mutant: sigmoid computes the formula directly (through tanh: finite everywhere, with a finite
gradient), so autograd differentiates torch's own ops and the Function's backward is never used:
only the check that looks at the result's grad_fn sees it.

Breaks the rule uses_apply.
"""

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
        return grad_output * y * (1 - y)


def sigmoid(x):
    return 0.5 * (torch.tanh(0.5 * x) + 1)

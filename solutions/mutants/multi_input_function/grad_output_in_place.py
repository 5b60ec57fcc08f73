"""Mutant: scales grad_output in place (grad_output.mul_): fails when it is an expanded tensor.

Only the hidden check expanded_upstream catches it: the visible checks leave that open.
"""

import torch


class ScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        return x * w * scale

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        g = grad_output.mul_(ctx.scale)
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            grad_x = g * w
        if ctx.needs_input_grad[1]:
            grad_w = g * x
        return grad_x, grad_w, None


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)

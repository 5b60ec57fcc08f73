"""Mutant: forward flattens x and w with .view(-1) and views the product back: fails on a
transposed x.

Breaks the rule layouts.
"""

import torch


class ScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        return (x.view(-1) * w.view(-1) * scale).view(x.shape)

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.saved_tensors
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * w * ctx.scale
        if ctx.needs_input_grad[1]:
            grad_w = grad_output * x * ctx.scale
        return grad_x, grad_w, None


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)

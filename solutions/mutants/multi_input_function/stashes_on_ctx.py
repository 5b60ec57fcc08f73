"""Mutant: keeps x and w as ctx attributes (ctx.x = x) instead of ctx.save_for_backward; the
values and gradients are right.

Breaks the rule save_for_backward.
"""

import torch


class ScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.x = x
        ctx.w = w
        ctx.scale = scale
        return x * w * scale

    @staticmethod
    def backward(ctx, grad_output):
        x, w = ctx.x, ctx.w
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * w * ctx.scale
        if ctx.needs_input_grad[1]:
            grad_w = grad_output * x * ctx.scale
        return grad_x, grad_w, None


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)

"""Variant: scales grad_output once; a list turned into a tuple."""

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
        g = grad_output * ctx.scale
        grads = [None, None, None]
        if ctx.needs_input_grad[0]:
            grads[0] = g * w
        if ctx.needs_input_grad[1]:
            grads[1] = g * x
        return tuple(grads)


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)

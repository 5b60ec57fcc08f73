"""Mutant: the Function is renamed ScaledMultiply, where the exercise keeps the class name
ScaledMul: the result's grad_fn is ScaledMultiplyBackward. Breaks the rule class_name."""

import torch


class ScaledMultiply(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        return x * w * scale

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
    return ScaledMultiply.apply(x, w, scale)

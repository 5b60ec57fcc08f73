"""Mutant: backward computes both gradients every time and only then returns None for the one
ctx.needs_input_grad does not ask for: the values and the Nones are right, the work is not.
Breaks the rule no_unneeded_work."""

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
        grad_x = grad_output * w * ctx.scale
        grad_w = grad_output * x * ctx.scale
        return (
            grad_x if ctx.needs_input_grad[0] else None,
            grad_w if ctx.needs_input_grad[1] else None,
            None,
        )


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)

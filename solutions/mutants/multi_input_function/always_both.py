"""Mutant: computes both gradients whether or not they are needed, and returns both. Breaks the
rule only_needed. Breaks the rule no_unneeded_work."""

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
        return grad_x, grad_w, None


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)

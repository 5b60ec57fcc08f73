"""Mutant: returns zeros, not None, for an input that needs no gradient (no gradient is computed
for it, but autograd is handed a tensor where None belongs). Breaks the rule only_needed."""

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
        grad_x, grad_w = torch.zeros_like(x), torch.zeros_like(w)
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * w * ctx.scale
        if ctx.needs_input_grad[1]:
            grad_w = grad_output * x * ctx.scale
        return grad_x, grad_w, None


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)

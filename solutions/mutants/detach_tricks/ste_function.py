"""Mutant: round_ste as a custom torch.autograd.Function whose backward passes the gradient
through: values and gradients are right, but the exercise asks for detach(), no
autograd.Function.

Breaks the rule use_detach.
"""

import torch


class _RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


def round_ste(x):
    return _RoundSTE.apply(x)


def ema_update(ema, params, decay):
    with torch.no_grad():
        for e, p in zip(ema, params):
            e.mul_(decay).add_(p, alpha=1 - decay)

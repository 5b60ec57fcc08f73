"""Trivial mutant: constant answers, the parameters themselves as gradients."""

import torch


def grad_twice(x):
    return torch.ones_like(x), torch.ones_like(x)


def two_loss_grads(model, x, target):
    ps = [p.detach().clone() for p in model.parameters()]
    return ps, ps

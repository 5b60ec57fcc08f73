"""Trivial mutant: only zeroes the gradients."""


def accumulate_grads(model, x, target, chunk):
    model.zero_grad()

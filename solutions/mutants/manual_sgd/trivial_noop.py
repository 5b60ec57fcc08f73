"""Trivial mutant: does nothing."""


def sgd_step(params, lr):
    pass


def clamp_weights_(w, limit):
    return w

"""Trivial mutant: returns x."""


def scaled_mul(x, w, scale):
    return x.clone()

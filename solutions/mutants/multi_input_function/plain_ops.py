"""Mutant: plain tensor operations, no custom Function."""


def scaled_mul(x, w, scale):
    return x * w * scale

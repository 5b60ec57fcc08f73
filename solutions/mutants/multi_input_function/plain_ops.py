"""Mutant: plain tensor operations, no custom Function. Breaks the rule uses_apply."""


def scaled_mul(x, w, scale):
    return x * w * scale

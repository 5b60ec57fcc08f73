"""Trivial: the logits unchanged, the sum of |v| for a norm, and always the same node name."""


def log_softmax(logits):
    return logits


def safe_norm(v):
    return v.abs().sum(dim=-1)


def find_nan_source(fn, *inputs):
    return "MulBackward0"

"""Trivial: zeros of the right shape, no Function at all."""

import torch  # noqa: F401


def sigmoid(x):
    return x * 0

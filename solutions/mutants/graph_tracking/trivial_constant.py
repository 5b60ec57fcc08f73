"""Trivial mutant: constant answers."""

import torch


def make_tracked(x):
    return torch.zeros_like(x), torch.ones_like(x)


def backward_nodes(out):
    return ["AccumulateGrad", "AddBackward0", "MulBackward0"]


def count_leaves(out):
    return 1

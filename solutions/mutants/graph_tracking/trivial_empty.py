"""Trivial mutant: returns the input and empty answers."""


def make_tracked(x):
    return x, x


def backward_nodes(out):
    return []


def count_leaves(out):
    return 0

"""Mutant: backward_nodes lists one class name per node, so a name that several nodes share
(two MulBackward0 nodes) appears several times; the instructions ask for each name once."""

import torch


def make_tracked(x):
    a = x.detach().clone().requires_grad_(True)
    y = a * 2 + 1
    return a, y


def _nodes(out):
    """Every backward node reachable from out.grad_fn, each once."""
    seen, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return seen


def backward_nodes(out):
    return sorted(type(node).__name__ for node in _nodes(out))


def count_leaves(out):
    return len({id(node.variable) for node in _nodes(out) if hasattr(node, "variable")})

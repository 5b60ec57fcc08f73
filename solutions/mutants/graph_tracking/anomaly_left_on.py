"""Mutant: backward_nodes turns anomaly detection on for the whole program (to "see the
graph") and never turns it off; its names stay right.

Breaks the rule global_modes.
"""

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
    torch.autograd.set_detect_anomaly(True)
    return sorted({type(node).__name__ for node in _nodes(out)})


def count_leaves(out):
    return len({id(node.variable) for node in _nodes(out) if hasattr(node, "variable")})

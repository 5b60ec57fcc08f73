"""Mutant: count_leaves tells leaves apart by their values, so two leaves that hold equal values
count once. Only equal leaves show it: count_leaves names them as an edge, drawn under every
seed."""

import torch


def make_tracked(x):
    a = x.detach().clone().requires_grad_(True)
    y = a * 2 + 1
    return a, y


def _nodes(out):
    seen, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return seen


def backward_nodes(out):
    return sorted({type(node).__name__ for node in _nodes(out)})


def count_leaves(out):
    return len(
        {tuple(node.variable.detach().tolist()) for node in _nodes(out) if hasattr(node, "variable")}
    )

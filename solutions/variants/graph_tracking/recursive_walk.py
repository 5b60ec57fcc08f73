"""Variant: recursion instead of a stack; leaves by the is_leaf of AccumulateGrad's variable."""

import torch


def make_tracked(x):
    a = torch.tensor(x.tolist(), dtype=x.dtype, requires_grad=True).reshape(x.shape)
    a = a.detach().requires_grad_()
    return a, 2 * a + 1


def walk(node, seen):
    if node is None or node in seen:
        return
    seen.add(node)
    for child, _ in node.next_functions:
        walk(child, seen)


def backward_nodes(out):
    seen = set()
    walk(out.grad_fn, seen)
    return sorted(set(type(n).__name__ for n in seen))


def count_leaves(out):
    seen = set()
    walk(out.grad_fn, seen)
    leaves = [n.variable for n in seen if type(n).__name__ == "AccumulateGrad"]
    return len(set(id(v) for v in leaves if v.is_leaf))

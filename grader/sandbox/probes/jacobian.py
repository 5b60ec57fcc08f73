"""The jacobian probe: the raw material of a gradcheck that the grader computes itself.

For a function F of some "variables" (tensors), the probe evaluates F at points the grader chose
(the base point moved by ±eps along each element) and returns the analytic Jacobian rows at the
base point, one backward per output element with a unit upstream vector. It never compares them:
the grader builds the numerical Jacobian from the points and decides.

- order 1: F(x...) = the entry point's outputs; the variables are the arguments at `wrt`.
- order 2: F(x..., v) = the gradients of the entry point's outputs with respect to the arguments
  at `wrt`, for upstream gradients v (backward with create_graph=True), as gradgradcheck does.
"""

from __future__ import annotations

import torch

from grader.common import wire
from grader.sandbox.probes import (
    Context,
    Phase,
    _autograd_grad,
    _tensors,
    describe,
    lookup,
    plain,
    student_code,
)
from grader.sandbox.trap import tampered

# Bounds a hostile or careless submission cannot push the worker past.
MAX_ROWS = 64
MAX_POINTS = 64


def jacobian(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    fn = lookup(ctx.module, h["fn"])
    args = [_data(dec.value(a)) for a in h["args"]]
    wrt = [int(i) for i in h["wrt"]]
    order = int(h.get("order", 1))
    base = [args[i] for i in wrt] + [_data(dec.value(u)) for u in h.get("upstream", [])]
    points = [[_data(dec.value(v)) for v in p] for p in h["points"][:MAX_POINTS]]
    reply: dict = {"ok": True}
    phase = Phase("backward" if order == 2 else "call")
    with student_code(ctx, h.get("forbid", []), phase):
        at_points = [_evaluate(fn, args, wrt, order, p, create_graph=False)[1] for p in points]
        leaves, outs = _evaluate(fn, args, wrt, order, base, create_graph=True)
        phase.name = "backward"
        rows, differentiable = _rows(outs, leaves)
    reply["data"] = {
        "D": [
            ["base", {"L": [describe(enc, o) for o in outs]}],
            ["points", {"L": [{"L": [describe(enc, o) for o in p]} for p in at_points]}],
            ["rows", {"L": [describe(enc, r) for r in rows]}],
            ["differentiable", {"L": differentiable}],
        ]
    }
    reply["tampered"] = tampered(ctx.before)
    return reply


def _data(value):
    return value.data if isinstance(value, wire.TensorFacts) else value


def _evaluate(fn, args, wrt, order, variables, create_graph):
    """F at one point: (the leaves standing for the variables, F's output tensors)."""
    leaves = [v.detach().clone().requires_grad_(True) for v in variables]
    call_args = list(args)
    for i, leaf in zip(wrt, leaves):
        call_args[i] = leaf
    outs = _tensors(fn(*call_args))
    if order == 1:
        return leaves, outs
    xs, ups = leaves[: len(wrt)], leaves[len(wrt) :]
    if len(ups) != len(outs):
        raise ValueError(f"expected {len(ups)} output tensor(s), got {len(outs)}")
    ups = [u.reshape(o.shape) if u.numel() == o.numel() else u for u, o in zip(ups, outs)]
    grads = _autograd_grad(
        outs, xs, grad_outputs=ups, allow_unused=True, create_graph=create_graph
    )
    return leaves, [g if g is not None else torch.zeros_like(x) for g, x in zip(grads, xs)]


def _rows(outs, leaves):
    """Backward with each unit upstream vector: row j holds d out_j / d each variable."""
    rows, differentiable = [], []
    for out in outs:
        differentiable.append(bool(out.requires_grad))
        n = out.numel()
        if len(rows) + n > MAX_ROWS:
            raise ValueError(f"gradcheck needs at most {MAX_ROWS} output elements, got more")
        for j in range(n):
            if not out.requires_grad:
                rows.append(None)
                continue
            unit = torch.zeros(n, dtype=out.dtype)
            unit[j] = 1
            grads = _autograd_grad(
                [out],
                leaves,
                grad_outputs=[unit.reshape(out.shape)],
                retain_graph=True,
                allow_unused=True,
            )
            rows.append(tuple(plain(g) if g is not None else None for g in grads))
    return rows, differentiable


PROBES = {"jacobian": jacobian}

"""The call probe: call an entry point on the grader's inputs, optionally backward through it."""

from __future__ import annotations

import torch

from ... import wire
from ..trap import tampered
from . import (Context, Phase, _autograd_grad, _tensors, describe, graph_facts, lookup, plain,
               student_code)


def call(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    """Call an entry point `repeat` times on the same inputs; optionally backward through it."""
    fn = lookup(ctx.module, h["fn"])
    args = [_plain_arg(dec.value(a)) for a in h["args"]]
    for i in h.get("grad_args", []):
        args[i].requires_grad_(True)
    forbid = h.get("forbid", [])
    reply: dict = {"ok": True}
    outs = []
    phase = Phase()
    with student_code(ctx, forbid, phase):
        for _ in range(int(h.get("repeat", 1))):
            outs.append(fn(*args))
        if h.get("backward"):
            phase.name = "backward"
            reply["grads"] = describe(enc, backward(h, dec, outs[0], args))
    reply["outs"] = {"L": [describe(enc, out) for out in outs]}
    if h.get("graph"):
        reply["graph"] = graph_facts(outs[0])
    reply["args_after"] = {"L": [describe_arg(enc, a) for a in args]}
    reply["tampered"] = tampered(ctx.before)
    return reply


def backward(h: dict, dec: wire.Decoder, out, args) -> tuple:
    spec = h["backward"]
    inputs = [args[i] for i in h.get("grad_args", [])]
    outputs = _tensors(out)
    upstream = spec.get("upstream")
    if upstream is not None:
        ups = [u.data for u in _tensors_facts(dec.value(upstream))]
    else:
        ups = [torch.ones_like(plain(o)) for o in outputs]
    if len(ups) != len(outputs):
        raise ValueError(f"expected {len(ups)} output tensor(s), got {len(outputs)}")
    ups = [u.reshape(o.shape) if u.numel() == o.numel() else u for u, o in zip(ups, outputs)]
    grads = _autograd_grad(outputs, inputs, grad_outputs=ups, allow_unused=True,
                           create_graph=bool(spec.get("create_graph")))
    return tuple(grads)


def _tensors_facts(value):
    if isinstance(value, wire.TensorFacts):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors_facts(v)]
    return []


def describe_arg(enc: wire.Encoder, arg):
    if not isinstance(arg, torch.Tensor):
        return describe(enc, arg)
    facts = {"requires_grad": bool(arg.requires_grad), "is_leaf": bool(arg.is_leaf),
             "has_grad": arg.grad is not None, "type_name": type(arg).__name__[:100],
             "exact_type": type(arg) is torch.Tensor}
    return enc.add_tensor(plain(arg), facts)


PROBES = {"call": call}


def _plain_arg(value):
    return value.data if isinstance(value, wire.TensorFacts) else value

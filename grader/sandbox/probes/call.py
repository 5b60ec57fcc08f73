"""The call probe: call an entry point on the grader's inputs, optionally backward through it."""

from __future__ import annotations

import torch

from grader.common import wire
from grader.sandbox.probes import (
    Context,
    Phase,
    _autograd_grad,
    _tensors,
    describe,
    graph_facts,
    lookup,
    plain,
    student_code,
)
from grader.sandbox.probes.effects import tensor_hooks
from grader.sandbox.trap import tampered


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
    versions = [versions_of(a) for a in args]
    with student_code(ctx, forbid, phase):
        for _ in range(int(h.get("repeat", 1))):
            outs.append(fn(*args))
        if h.get("backward"):
            phase.name = "backward"
            grads, reply["upstream_changed"] = backward(h, dec, outs[0], args)
            reply["grads"] = describe(enc, grads)
    reply["outs"] = {"L": [describe(enc, out) for out in outs]}
    if h.get("graph"):
        reply["graph"] = graph_facts(outs[0])
    reply["args_after"] = {"L": [describe_arg(enc, a, v) for a, v in zip(args, versions)]}
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
    kept = [(u._version, u.clone()) for u in ups]
    grads = _autograd_grad(
        outputs,
        inputs,
        grad_outputs=ups,
        allow_unused=True,
        create_graph=bool(spec.get("create_graph")),
    )
    # A backward that writes into grad_output (grad_output.mul_(...)) changes a tensor autograd
    # may hand to other nodes too; the version counter sees it even when the values return.
    changed = any(u._version != v or not torch.equal(u, c) for u, (v, c) in zip(ups, kept))
    return tuple(grads), changed


def versions_of(arg):
    """The version counter of a tensor argument (bumped by every in-place change), its
    requires_grad and its hooks, before the call."""
    if not isinstance(arg, torch.Tensor):
        return None
    grad = arg.grad  # an old .grad the caller's tensor holds (a starting state)
    kept = None if grad is None else (grad, grad._version, grad.detach().clone())
    return (arg._version, bool(arg.requires_grad), tensor_hooks(arg), kept)


def _tensors_facts(value):
    if isinstance(value, wire.TensorFacts):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors_facts(v)]
    return []


def describe_arg(enc: wire.Encoder, arg, version=None):
    """An argument after the call; with version (its counter before the call), whether it was
    changed in place, even if a second in-place change restored its values."""
    if not isinstance(arg, torch.Tensor):
        return describe(enc, arg)
    facts = {
        "requires_grad": bool(arg.requires_grad),
        "is_leaf": bool(arg.is_leaf),
        "has_grad": arg.grad is not None,
        "type_name": type(arg).__name__[:100],
        "exact_type": type(arg) is torch.Tensor,
    }
    if version is not None:
        facts["x_in_place"] = arg._version != version[0]
        facts["x_requires_grad_before"] = version[1]
        facts["x_hook_left"] = tensor_hooks(arg) != version[2]
        old = version[3]
        facts["x_grad_kept"] = old is not None and (
            arg.grad is old[0] and old[0]._version == old[1] and torch.equal(old[0], old[2])
        )
    return enc.add_tensor(plain(arg), facts)


PROBES = {"call": call}


def _plain_arg(value):
    return value.data if isinstance(value, wire.TensorFacts) else value

"""Probes: the fixed things a worker does with the student's code, and the data it reports.

A probe calls the student's entry point on inputs the grader sent, optionally runs backward, and
reports outputs, gradients and facts (types, flags, saved tensors, whether inputs changed). It
never judges: the grader compares this data with torch autograd in its own process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .. import wire
from .trap import ForbiddenCall, Trap, tampered

# Captured when the template imports this module, before any student code exists.
_autograd_grad = torch.autograd.grad
_disable_subclass = torch._C.DisableTorchFunctionSubclass
_as_subclass = torch.Tensor.as_subclass


@dataclass
class Context:
    module: object
    trap: Trap
    scratch: str
    before: dict


class StudentError(Exception):
    def __init__(self, phase: str, exc: BaseException):
        super().__init__(phase)
        self.phase, self.exc = phase, exc


def plain(t: torch.Tensor) -> torch.Tensor:
    """The same data as an exact torch.Tensor, whatever subclass the student returned."""
    with _disable_subclass():
        return _as_subclass(t, torch.Tensor).detach()


def describe(enc: wire.Encoder, obj, depth: int = 0):
    """Encode a value the student's code produced, without trusting its methods."""
    if depth > wire.MAX_DEPTH:
        return {"O": "too deeply nested"}
    if obj is None or type(obj) in (bool, int, str):
        return obj
    if type(obj) is float:
        return obj if math.isfinite(obj) else {"F": repr(obj)}
    if isinstance(obj, torch.Tensor):
        with _disable_subclass():
            facts = {
                "type_name": type(obj).__name__[:100],
                "exact_type": type(obj) in (torch.Tensor, torch.nn.Parameter),
                "requires_grad": bool(obj.requires_grad),
                "is_leaf": bool(obj.is_leaf),
                "grad_fn": type(obj.grad_fn).__name__ if obj.grad_fn is not None else None,
            }
        return enc.add_tensor(plain(obj), facts)
    if type(obj) in (tuple, list):
        tag = "U" if type(obj) is tuple else "L"
        return {tag: [describe(enc, v, depth + 1) for v in list(obj)[:64]]}
    if type(obj) is dict:
        return {"D": [[str(k)[:100], describe(enc, v, depth + 1)]
                      for k, v in list(obj.items())[:64]]}
    return {"O": type(obj).__name__[:100]}


def lookup(module, dotted: str):
    obj = module
    for name in dotted.split("."):
        obj = getattr(obj, name)
    return obj


def graph_facts(out) -> dict:
    """What the output's grad_fn holds: saved tensors and tensors stashed on ctx."""
    node = getattr(out, "grad_fn", None) if isinstance(out, torch.Tensor) else None
    if node is None:
        return {"grad_fn": None}
    facts = {"grad_fn": type(node).__name__}
    try:
        facts["saved_tensors"] = len(node.saved_tensors)
    except (AttributeError, RuntimeError):
        facts["saved_tensors"] = None
    attrs = getattr(node, "__dict__", {})
    facts["ctx_tensors"] = sorted(k for k, v in attrs.items() if isinstance(v, torch.Tensor))[:20]
    return facts


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def call(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    """Call an entry point `repeat` times on the same inputs; optionally backward through it."""
    fn = lookup(ctx.module, h["fn"])
    args = [_plain_arg(dec.value(a)) for a in h["args"]]
    for i in h.get("grad_args", []):
        args[i].requires_grad_(True)
    forbid = h.get("forbid", [])
    reply: dict = {"ok": True}
    outs = []
    phase = "call"
    try:
        with ctx.trap.active(forbid):
            for _ in range(int(h.get("repeat", 1))):
                outs.append(fn(*args))
            if h.get("backward"):
                phase = "backward"
                reply["grads"] = describe(enc, backward(h, dec, outs[0], args))
    except ForbiddenCall as exc:
        return {"ok": False, "phase": phase, "forbidden": str(exc)}
    except BaseException as exc:
        if ctx.trap.hits:
            return {"ok": False, "phase": phase, "forbidden": ctx.trap.hits[0]}
        raise StudentError(phase, exc) from None
    if ctx.trap.hits:
        return {"ok": False, "phase": phase, "forbidden": ctx.trap.hits[0]}
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


def handle(ctx: Context, header: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    probe = PROBES.get(header.get("op"))
    if probe is None:
        return {"ok": False, "phase": "probe",
                "error": {"type": "UnknownProbe", "message": str(header.get("op")),
                          "traceback": []}}
    try:
        return probe(ctx, header, dec, enc)
    except StudentError as err:
        from .worker import describe_exception

        return {"ok": False, "phase": err.phase, "error": describe_exception(err.exc, ctx.scratch)}


def _plain_arg(value):
    return value.data if isinstance(value, wire.TensorFacts) else value

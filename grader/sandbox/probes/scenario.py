"""The scenario probe: run a function on objects a trusted setup built, and observe what changed.

The same `run` serves both sides. The worker runs it with the student's function (under the
forbidden-API trap); the grader runs it with the spec's reference function, on its own copies of
the same inputs. Each returns the same fixed set of observations, as plain data:

- the value returned (or the exception raised, when the spec observes `exception`),
- for each observed name (`result` or an object the setup made: a tensor, a module, a list or
  dict of them) the facets the spec asks for: value, grad, requires_grad, is_leaf, grad_fn
  (the backward node's class name) and node_returns (for the output of a custom
  autograd.Function: which of its backward's outputs are None),
- under EFFECTS, what the call changed in every object the setup made, observed or not
  (sandbox.probes.effects): the grader compares the student's changes with the reference's.

Setup and reference are the teacher's code from the spec; the student's file chooses neither.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import math

import torch
import torch.nn.functional as F
from torch import nn

from grader.common import wire
from grader.sandbox.probes import (
    Context,
    Phase,
    StudentError,
    _backward_cfunction,
    _disable_subclass,
    describe,
    effects,
    lookup,
    plain,
    student_code,
)
from grader.sandbox.trap import tampered

# Captured at the template's import, before any student code can replace them.
_backward = torch.autograd.backward
_Module = nn.Module
_named_parameters = nn.Module.named_parameters

FACETS = ("value", "grad", "requires_grad", "is_leaf", "grad_fn", "node_returns")
EFFECTS = effects.KEY
NAMESPACE = {"torch": torch, "nn": nn, "F": F, "math": math}


@functools.lru_cache(maxsize=64)
def _compiled(source: str, where: str):
    """The spec's source compiled once per worker, not once per call (code is immutable)."""
    return compile(source, where, "exec")


def define(source: str, name: str, where: str):
    """The function `name` defined by trusted spec source."""
    scope = dict(NAMESPACE, __builtins__=builtins)
    exec(_compiled(source, where), scope)  # noqa: S102 (the teacher's spec, not a student's)
    fn = scope.get(name)
    if not callable(fn):
        raise ValueError(f"{where} defines no function {name!r}")
    return fn


def _facets(obj, facets, depth=0) -> object:
    """The observed facets of one object, as plain values and tensors."""
    if isinstance(obj, torch.Tensor):
        with _disable_subclass():
            return _tensor_facets(obj, facets)
    if isinstance(obj, _Module):
        # The class's method, not the instance's: a student's file may replace the latter.
        return {name: _facets(p, facets, depth + 1) for name, p in _named_parameters(obj)}
    if depth < 4 and type(obj) in (list, tuple):
        return [_facets(v, facets, depth + 1) for v in obj]
    if depth < 4 and type(obj) is dict:
        return {str(k): _facets(v, facets, depth + 1) for k, v in obj.items()}
    return {"value": obj} if "value" in facets else {}


def _tensor_facets(obj: torch.Tensor, facets) -> dict:
    out = {}
    for f in facets:
        if f == "value":
            out[f] = plain(obj).clone()
        elif f == "grad":
            out[f] = None if obj.grad is None else plain(obj.grad).clone()
        elif f == "requires_grad":
            out[f] = bool(obj.requires_grad)
        elif f == "is_leaf":
            out[f] = bool(obj.is_leaf)
        elif f == "grad_fn":
            out[f] = None if obj.grad_fn is None else type(obj.grad_fn).__name__
    return out


def _node_returns(obj, guard) -> object:
    """For the output of a custom autograd.Function: which outputs of its backward are None,
    with an upstream gradient of ones (the node's backward called once, directly)."""
    node = obj.grad_fn if isinstance(obj, torch.Tensor) else None
    if node is None or not isinstance(node, _backward_cfunction):
        return None
    with guard("backward"):
        grads = node.apply(torch.ones_like(plain(obj)))
    grads = grads if isinstance(grads, tuple) else (grads,)
    return [g is None for g in grads]


def run(fn, setup, drawn: dict, plan: dict, guard) -> dict:
    """Build the objects, call fn, optionally backward, and observe. plan holds the check's
    call, observe, backward and upstream; guard(phase) wraps the code under test."""
    with guard("setup"):
        objs = setup(**drawn) if setup is not None else dict(drawn)
    if not isinstance(objs, dict):
        raise ValueError("setup must return a dict of name -> object")
    observe = plan["observe"]
    call = plan.get("call") or [n for n in objs]
    out: dict = {}
    before = effects.snapshot(objs)
    try:
        with guard("call"):
            objs["result"] = fn(*[objs[n] for n in call])
    except StudentError as err:
        if "exception" not in observe:
            raise
        out["exception"] = type(err.exc).__name__
        objs["result"] = None
    else:
        if "exception" in observe:
            out["exception"] = None
    out[EFFECTS] = effects.changes(before)
    returns = {
        n: _node_returns(objs[n], guard)
        for n, f in observe.items()
        if "node_returns" in f and n in objs
    }
    if plan.get("backward") and out.get("exception") is None:
        result = objs["result"]
        if isinstance(result, torch.Tensor) and result.requires_grad:
            up = objs[plan["upstream"]] if plan.get("upstream") else torch.ones_like(plain(result))
            with guard("backward"):
                _backward(result, up.reshape(result.shape).to(result.dtype))
    for name, facets in observe.items():
        if name == "exception":
            continue
        seen = _facets(objs.get(name), facets)
        if name in returns and isinstance(seen, dict):
            seen["node_returns"] = returns[name]
        out[name] = seen
    return out


def scenario(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    fn = lookup(ctx.module, h["fn"])
    scen = h["scenario"]
    drawn = {name: _plain(dec.value(a)) for name, a in zip(scen["names"], h["args"])}
    for name in scen.get("grad_args", []):
        drawn[name].requires_grad_(True)
    setup = define(scen["setup"], "setup", "setup") if scen.get("setup") else None
    forbid = h.get("forbid", [])

    def guard(phase: str):
        # The setup is the teacher's code: what it calls is not the student's.
        return student_code(ctx, forbid if phase != "setup" else [], Phase(phase))

    observed = run(fn, setup, drawn, scen, guard)
    return {"ok": True, "data": describe(enc, observed), "tampered": tampered(ctx.before)}


def local_guard(phase: str):
    """The grader's guard for the reference run: exceptions become StudentError, as in a worker."""
    return _Local(phase)


class _Local(contextlib.AbstractContextManager):
    def __init__(self, phase):
        self.phase = phase

    def __exit__(self, kind, exc, tb):
        if exc is not None and isinstance(exc, Exception) and not isinstance(exc, StudentError):
            raise StudentError(self.phase, exc) from None
        return False


def _plain(value):
    return value.data.clone() if isinstance(value, wire.TensorFacts) else value


PROBES = {"scenario": scenario}

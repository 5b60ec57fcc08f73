"""The scenario probe: run a function on objects a trusted setup built, and observe what changed.

The same `run` serves both sides. The worker runs it with the student's function (under the
forbidden-API trap); the grader runs it with the spec's reference function, on its own copies of
the same inputs. Each returns the same fixed set of observations, as plain data:

- the value returned (or the exception raised, when the spec observes `exception`),
- for each observed name (`result` or an object the setup made: a tensor, a module, a list or
  dict of them) the facets the spec asks for: value, grad, requires_grad, is_leaf, grad_fn
  (the backward node's class name) and node_returns (for the output of a custom
  autograd.Function: which of its backward's outputs are None),
- facets the judge counts, kept apart from the values (COUNTED): forward_calls (of a module:
  how many forward passes it ran during the call, the most any of its modules ran, so that
  "one forward" is seen where two forwards give the same values) and backward_work (of a
  custom Function's output: the aten operations its backward runs, and what it runs again
  when every tensor argument needs a gradient, so that "do not compute what is not needed" is
  seen where the None it returns hides the work) and backward_calls (of the call, named under
  `result`: the backward passes the autograd engine ran during it, so that "one backward per
  row" is seen where a batched backward or a formula gives the same values),
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
from torch.utils._python_dispatch import TorchDispatchMode

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
_modules = nn.Module.modules
_forward_pre_hook = torch.nn.modules.module.register_module_forward_pre_hook
_Tensor = torch.Tensor
_Variable = torch.autograd.variable.Variable

COUNTED = ("forward_calls", "backward_work", "backward_calls")
"""Facets observed as counts of what the code did (the module docstring), sent under their own
key of the observations, by the observed name."""
FACETS = ("value", "grad", "requires_grad", "is_leaf", "grad_fn", "node_returns", *COUNTED)
EFFECTS = effects.KEY
COUNTS = "counts"
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


class _Ops(TorchDispatchMode):
    """Counts the aten operations run inside it (the work a backward does)."""

    def __init__(self):
        super().__init__()
        self.ops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops += 1
        return func(*args, **(kwargs or {}))


class _Calls:
    """A global forward pre-hook counting the forward passes of the observed modules."""

    def __init__(self, roots: dict):
        self.trees = {n: [id(m) for m in _modules(root)] for n, root in roots.items()}
        self.seen: dict[int, int] = {}

    def __call__(self, module, args):
        self.seen[id(module)] = self.seen.get(id(module), 0) + 1

    def counts(self) -> dict:
        return {n: max(self.seen.get(i, 0) for i in ids) for n, ids in self.trees.items()}


class _Engine:
    """The autograd engine with its backward passes counted: every Tensor.backward,
    torch.autograd.backward and torch.autograd.grad runs the engine once (a batched grad,
    is_grads_batched=True, once for all its vectors); everything else is the engine's own."""

    def __init__(self, engine, counter: _Backwards):
        self._engine, self._counter = engine, counter

    def run_backward(self, *args, **kwargs):
        self._counter.runs += 1
        return self._engine.run_backward(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._engine, name)


class _Backwards(contextlib.AbstractContextManager):
    """Counts the backward passes the autograd engine runs inside it (the engine Python calls
    into, Variable._execution_engine, wrapped for the while and put back)."""

    def __init__(self):
        self.runs = 0
        self._engine = None

    def __enter__(self):
        self._engine = _Variable._execution_engine
        _Variable._execution_engine = _Engine(self._engine, self)
        return self

    def __exit__(self, *exc):
        _Variable._execution_engine = self._engine
        return False


def _backward_ops(node, out, guard) -> int:
    with guard("backward"):
        counter = _Ops()
        with counter:
            node.apply(torch.ones_like(plain(out)))
    return counter.ops


def _backward_work(fn, objs: dict, call: list, name: str, guard) -> object:
    """For the output of a custom autograd.Function: its ctx.needs_input_grad, the operations
    its backward runs (called once, directly, upstream ones), and the operations it runs when
    fn is called again on copies of the call's arguments whose floating-point tensors all
    require grad; None where the output is no such Function's."""
    out = objs.get(name)
    node = out.grad_fn if isinstance(out, _Tensor) else None
    if node is None or not isinstance(node, _backward_cfunction):
        return None
    work = {"needs": [bool(n) for n in node.needs_input_grad], "ops": None, "ops_all": None}
    work["ops"] = _backward_ops(node, out, guard)
    args = [
        plain(a).detach().clone().requires_grad_(True)
        if isinstance(a, _Tensor) and a.is_floating_point()
        else a
        for a in (objs[n] for n in call)
    ]
    with guard("call"):
        again = fn(*args)
    node = again.grad_fn if isinstance(again, _Tensor) else None
    if node is not None and isinstance(node, _backward_cfunction):
        work["ops_all"] = _backward_ops(node, again, guard)
    return work


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
    counted = {n: f for n, f in observe.items() if set(f) & set(COUNTED)}
    calls = _Calls({n: objs[n] for n, f in counted.items() if "forward_calls" in f and n in objs})
    hook = _forward_pre_hook(calls) if calls.trees else None
    backwards = [n for n, f in counted.items() if "backward_calls" in f]
    engine = _Backwards() if backwards else contextlib.nullcontext()
    try:
        with guard("call"), engine:
            objs["result"] = fn(*[objs[n] for n in call])
    except StudentError as err:
        if "exception" not in observe:
            raise
        out["exception"] = type(err.exc).__name__
        objs["result"] = None
    else:
        if "exception" in observe:
            out["exception"] = None
    finally:
        if hook is not None:
            hook.remove()
    out[EFFECTS] = effects.changes(before)
    if counted:
        out[COUNTS] = dict(calls.counts()) if calls.trees else {}
        for n in backwards:
            out[COUNTS][n] = {"backward_calls": engine.runs}
        for n, f in counted.items():
            if "backward_work" in f and out.get("exception") is None:
                out[COUNTS][n] = _backward_work(fn, objs, call, n, guard)
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
        facets = [f for f in facets if f not in COUNTED]
        if name == "exception" or not facets:
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

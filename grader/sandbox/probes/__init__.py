"""Probes: the fixed things a worker does with the student's code, and the data it reports.

Each module in this package defines probes in a PROBES dict (op name -> function); they are
collected here. A probe gets (ctx, header, decoder, encoder) and returns the reply header.

A probe calls the student's entry point on inputs the grader sent, optionally runs backward, and
reports outputs, gradients and facts (types, flags, saved tensors, whether inputs changed). It
never judges: the grader compares this data with torch autograd in its own process.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from pathlib import Path

import torch

from grader.common import plugins, wire
from grader.sandbox.tracebacks import describe_exception
from grader.sandbox.trap import ForbiddenCall, Trap

# Captured when the template imports this module, before any student code exists.
_autograd_grad = torch.autograd.grad
_disable_subclass = torch._C.DisableTorchFunctionSubclass
_as_subclass = torch.Tensor.as_subclass
_backward_cfunction = torch.autograd.function.BackwardCFunction


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


class Forbidden(Exception):
    """Student code reached a forbidden API: the probe ends with a `forbidden` reply."""

    def __init__(self, phase: str, api: str):
        super().__init__(api)
        self.phase, self.api = phase, api


class Phase:
    """Which step of a probe runs (call, backward): named in the reply when it fails."""

    def __init__(self, name: str = "call"):
        self.name = name


@contextlib.contextmanager
def student_code(ctx: Context, forbid, phase: Phase):
    """Run the body as student code under the forbidden-API trap. Anything it raises becomes
    StudentError (with the phase); a forbidden call, even one the code caught, Forbidden."""
    try:
        with ctx.trap.active(forbid):
            yield
    except ForbiddenCall as exc:
        raise Forbidden(phase.name, str(exc)) from None
    except BaseException as exc:
        if ctx.trap.hits:
            raise Forbidden(phase.name, ctx.trap.hits[0]) from None
        raise StudentError(phase.name, exc) from None
    if ctx.trap.hits:
        raise Forbidden(phase.name, ctx.trap.hits[0])


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
    # A namedtuple, an OrderedDict or another subclass travels as the plain type, read with
    # the base class's methods (never the subclass's, which are the student's code).
    if isinstance(obj, (tuple, list)):
        tag = "U" if isinstance(obj, tuple) else "L"
        items = tuple.__iter__(obj) if tag == "U" else list.__iter__(obj)
        return {tag: [describe(enc, v, depth + 1) for _, v in zip(range(64), items)]}
    if isinstance(obj, dict):
        pairs = zip(range(64), dict.items(obj))
        return {
            "D": [
                [
                    str(k)[:100] if type(k) in (str, int, float, bool) else _key(k),
                    describe(enc, v, depth + 1),
                ]
                for _, (k, v) in pairs
            ]
        }
    return {"O": type(obj).__name__[:100]}


def _key(k) -> str:
    """A dict key that is not a plain str: its type name only (its __str__ is student code)."""
    return f"<{type(k).__name__[:50]}>"


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
    facts = {
        "grad_fn": type(node).__name__,
        # True for the backward node of an autograd.Function subclass (its .apply)
        "custom": isinstance(node, _backward_cfunction),
    }
    try:
        facts["saved_tensors"] = len(node.saved_tensors)
    except (AttributeError, RuntimeError):
        facts["saved_tensors"] = None
    attrs = getattr(node, "__dict__", {})
    facts["ctx_tensors"] = sorted(k for k, v in attrs.items() if _holds_tensor(v))[:20]
    return facts


def _holds_tensor(value, depth: int = 0) -> bool:
    """A tensor, or a tuple, list or dict (subclasses too) with one inside, a few levels deep."""
    if isinstance(value, torch.Tensor):
        return True
    if depth >= 4:
        return False
    if isinstance(value, (tuple, list)):
        return any(_holds_tensor(v, depth + 1) for v in list(value)[:64])
    if isinstance(value, dict):
        return any(_holds_tensor(v, depth + 1) for v in list(value.values())[:64])
    return False


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


PROBES: dict = {}


def _collect() -> None:
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        PROBES.update(getattr(module, "PROBES", {}))


def load_plugin(plugin) -> None:
    """Import an exercise plugin's probes (grader.common.plugins) into PROBES: in the template
    or a portable worker, before any student code runs. plugin: [exercise id, folder] or None."""
    if not plugin:
        return
    module = plugins.module(str(plugin[0]), Path(plugin[1]), "probes")
    PROBES.update(getattr(module, "PROBES", {}) if module else {})


def handle(ctx: Context, header: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    probe = PROBES.get(header.get("op"))
    if probe is None:
        return {
            "ok": False,
            "phase": "probe",
            "error": {"type": "UnknownProbe", "message": str(header.get("op")), "traceback": []},
        }
    try:
        return probe(ctx, header, dec, enc)
    except Forbidden as err:
        return {"ok": False, "phase": err.phase, "forbidden": err.api}
    except StudentError as err:
        return {"ok": False, "phase": err.phase, "error": describe_exception(err.exc, ctx.scratch)}


_collect()

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
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch

from grader.common import plugins, wire
from grader.sandbox import trap as trap_module
from grader.sandbox.tracebacks import describe_exception
from grader.sandbox.trap import ForbiddenCall, Trap

# Captured when the template imports this module, before any student code exists.
_autograd_grad = torch.autograd.grad
_disable_subclass = torch._C.DisableTorchFunctionSubclass
_as_subclass = torch.Tensor.as_subclass
_backward_cfunction = torch.autograd.function.BackwardCFunction
_getframe = sys._getframe

# The process-wide modes a call must leave as it found them, each as (read, restore). Captured
# here, before student code can rebind them.
_is_anomaly, _is_check_nan = torch.is_anomaly_enabled, torch.is_anomaly_check_nan_enabled
_set_anomaly = torch.set_anomaly_enabled
_deterministic = torch.are_deterministic_algorithms_enabled
_set_deterministic = torch.use_deterministic_algorithms
MODES = {
    "grad_mode": (torch.is_grad_enabled, torch._C._set_grad_enabled),
    "anomaly_detection": (
        lambda: (_is_anomaly(), _is_check_nan()),
        lambda v: _set_anomaly(*v),
    ),
    "default_dtype": (torch.get_default_dtype, torch.set_default_dtype),
    "inference_mode": (torch.is_inference_mode_enabled, None),
    "deterministic_algorithms": (_deterministic, _set_deterministic),
}
"""A mode without a restore (inference mode is a guard object the code holds) is reported; the
worker is replaced after the failing example, as after any failure."""


def modes() -> dict:
    return {name: read() for name, (read, _) in MODES.items()}


def restore_modes(before: dict) -> list[str]:
    """The modes that differ from `before`, each set back where it can be."""
    changed = []
    for name, (read, write) in MODES.items():
        if read() != before[name]:
            changed.append(name)
            if write is not None:
                write(before[name])
    return changed


@dataclass
class Context:
    module: object
    trap: Trap
    scratch: str
    before: dict
    modes_changed: list = field(default_factory=list)
    """The global modes student code left changed during this request (restored since)."""


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
    StudentError (with the phase); a forbidden call, even one the code caught, Forbidden.
    Global modes (grad mode, anomaly detection, ...) the body leaves changed are noted in
    ctx.modes_changed and set back."""
    before = modes()
    body = _getframe(2)  # the probe's frame running the body (1 is contextlib's __enter__)
    try:
        # Every call shows its own warnings: Python shows a warning once per place and process,
        # so what a failing call printed would depend on which calls ran before it in that
        # worker (the replayed examples, the edges, hypothesis's runs), not on the call itself.
        with warnings.catch_warnings(), ctx.trap.active(forbid, phase, body):
            warnings.simplefilter("always")
            yield
    except ForbiddenCall as exc:
        raise Forbidden(phase.name, str(exc)) from None
    except BaseException as exc:
        if ctx.trap.hits:
            raise Forbidden(phase.name, ctx.trap.hits[0]) from None
        raise StudentError(phase.name, exc) from None
    finally:
        for name in restore_modes(before):
            if name not in ctx.modes_changed:
                ctx.modes_changed.append(name)
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
    """The student's entry point `dotted` in their module, as an Entry when it is callable."""
    obj = module
    for name in dotted.split("."):
        obj = getattr(obj, name)
    return Entry(obj) if callable(obj) else obj


class Entry:
    """A student's entry point as the probes call it: whatever runs under this call is the
    student's, even when the entry point is a torch function itself (`sigmoid =
    torch.sigmoid`), for the forbidden-API trap (sandbox.trap.Trap.students_call)."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


trap_module.entry_code(Entry.__call__.__code__)


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
    ctx.modes_changed = []
    try:
        reply = probe(ctx, header, dec, enc)
    except Forbidden as err:
        reply = {"ok": False, "phase": err.phase, "forbidden": err.api}
    except StudentError as err:
        reply = {
            "ok": False,
            "phase": err.phase,
            "error": describe_exception(err.exc, ctx.scratch),
        }
    if ctx.modes_changed:
        reply["modes_changed"] = list(ctx.modes_changed)
    return reply


_collect()

"""Runtime traps inside a worker: forbidden APIs and tampering with torch.

Runs in the untrusted worker. The traps report what they saw; the grader decides what it costs.
Installed before the student's file is imported, so `from torch.autograd import grad` in that
file binds the trapped function.
"""

from __future__ import annotations

import sys
import types

import torch

# torch attributes a submission might replace to fool a grader that compares in-process.
GUARDED_ATTRIBUTES = (
    "torch.allclose",
    "torch.isclose",
    "torch.equal",
    "torch.isfinite",
    "torch.isnan",
    "torch.isinf",
    "torch.testing.assert_close",
    "torch.Tensor.__eq__",
    "torch.Tensor.__ne__",
    "torch.Tensor.allclose",
    "torch.Tensor.equal",
    "torch.get_default_dtype",
    "torch.Tensor.backward",
    "torch.autograd.grad",
    "torch.autograd.backward",
)


ALIAS_MODULES = (
    "torch",
    "torch._C",
    "torch._C._VariableFunctions",
    "torch._C._special",
    "torch._C._nn",
    "torch._C._linalg",
    "torch._C._fft",
    "torch.special",
    "torch.nn.functional",
    "torch.linalg",
    "torch.fft",
)
"""Where torch keeps second names for the same functions (torch._C._special.special_expit is
torch.special.expit): a forbidden function is trapped under each of its names."""
_alias_index: dict[int, list[tuple[object, str, str]]] | None = None


def alias_index() -> dict[int, list[tuple[object, str, str]]]:
    """id(function) -> [(owner, attribute, dotted path)] over ALIAS_MODULES; built once (the
    template builds it before forking workers)."""
    global _alias_index
    if _alias_index is None:
        index: dict[int, list] = {}
        for path in ALIAS_MODULES:
            found = resolve(path) if path != "torch" else (None, "torch", torch)
            if found is None:
                continue
            module = found[2]
            for attr in dir(module):
                try:
                    value = getattr(module, attr)
                except Exception:
                    continue
                if callable(value) and not isinstance(value, (type, types.ModuleType)):
                    index.setdefault(id(value), []).append((module, attr, f"{path}.{attr}"))
        _alias_index = index
    return _alias_index


class ForbiddenCall(BaseException):
    """Raised into student code that reaches a forbidden API (BaseException: hard to swallow)."""


def resolve(path: str):
    """The object a dotted path names, with its owner and attribute name; None if absent."""
    parts = path.split(".")
    if parts[0] != "torch":
        return None
    owner, obj = None, torch
    for name in parts[1:]:
        owner = obj
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return owner, parts[-1], obj


def matches(path: str, patterns) -> bool:
    return any(path == p or path.startswith(p + ".") for p in patterns)


class Trap:
    """Wraps forbidden entry points; active only while `forbid` holds patterns."""

    def __init__(self):
        self.forbid: tuple[str, ...] = ()
        self.hits: list[str] = []
        self.originals: dict[str, object] = {}

    def install(self, patterns) -> None:
        for pattern in sorted(set(patterns)):
            found = resolve(pattern)
            if found is None:
                continue
            owner, name, obj = found
            if isinstance(obj, types.ModuleType):
                for attr in dir(obj):
                    value = getattr(obj, attr, None)
                    if (
                        not attr.startswith("_")
                        and callable(value)
                        and not isinstance(value, type)
                    ):
                        self._wrap(obj, attr, f"{pattern}.{attr}", value)
            elif callable(obj) and not isinstance(obj, type):
                self._wrap(owner, name, pattern, obj)
                for alias_owner, attr, alias in alias_index().get(id(obj), []):
                    self._wrap(alias_owner, attr, pattern, obj, key=alias)

    def _wrap(self, owner, name: str, path: str, original, key: str | None = None) -> None:
        """Replace owner.name by a trap reporting `path`; key: where it is (an alias)."""
        key = key or path
        if key in self.originals or getattr(owner, name, None) is not original:
            return
        trap = self

        def trapped(*args, **kwargs):
            if trap.forbid and matches(path, trap.forbid):
                trap.hits.append(path)
                raise ForbiddenCall(path)
            return original(*args, **kwargs)

        trapped.__name__ = getattr(original, "__name__", name)
        trapped.__doc__ = getattr(original, "__doc__", None)
        try:
            setattr(owner, name, trapped)
        except (AttributeError, TypeError):
            return
        self.originals[key] = original

    def active(self, patterns):
        return _Active(self, tuple(patterns))


class _Active:
    def __init__(self, trap: Trap, patterns):
        self.trap, self.patterns = trap, patterns

    def __enter__(self):
        self.saved = self.trap.forbid
        self.trap.forbid = self.patterns
        self.trap.hits = []

    def __exit__(self, *exc):
        self.trap.forbid = self.saved
        return False


GUARDED_MODULES = (
    "grader.common.wire",
    "grader.common.plugins",
    "grader.sandbox",
    "grader_plugins",
)
"""The grader's code that runs in a worker (see _probe_code)."""
_guarded_names: tuple[str, ...] | None = None


def _probe_code(rescan: bool = False) -> list[tuple]:
    """The grader's own code loaded in the worker (the probes that observe the student's
    objects, the wire format, these traps), as _probe_entries: functions with their code, and
    the methods of its classes. A file that patches them to forge its observations is reported
    as tampering, like one that patches torch."""
    global _guarded_names
    if _guarded_names is None or rescan:  # the worker's first, before any student code runs
        _guarded_names = tuple(n for n in list(sys.modules) if n.startswith(GUARDED_MODULES))
    return list(_probe_entries(_guarded_names))


def _probe_entries(names):
    """(dotted path, namespace, attribute, object, identity) of each piece of code _probe_code
    looks at, in the modules named (not every module of torch, on every call)."""
    for name in names:
        module = sys.modules.get(name)
        if module is None:  # removed: its entries are missing from the new snapshot
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, types.FunctionType):
                yield f"{name}.{attr}", module, attr, value, id(value) ^ id(value.__code__)
            elif isinstance(value, type) and value.__module__ == name:
                for k, v in list(vars(value).items()):
                    if isinstance(v, types.FunctionType):
                        yield f"{name}.{attr}.{k}", value, k, v, id(v) ^ id(v.__code__)
                yield f"{name}.{attr}", module, attr, value, id(value)


_watched: tuple[dict, list] | None = None
"""The worker's first snapshot and what it saw, as (snapshot, [(namespace, attribute, object,
its code or None)]): tampered() compares objects with these directly, and takes a new snapshot
only when one differs."""


def snapshot(rescan: bool = False) -> dict[str, int]:
    """Identities of the guarded torch attributes and of the grader's code in the worker, to
    notice later replacement. rescan: find the grader's modules again (the worker does before
    it imports the student's file; later snapshots look at those modules only)."""
    global _watched
    entries = _probe_code(rescan)
    out = {path: ident for path, _, _, _, ident in entries}
    for path in GUARDED_ATTRIBUTES:
        found = resolve(path)
        out[path] = id(found[2]) if found else 0
    if rescan:
        seen = [
            (owner, attr, value, value.__code__ if isinstance(value, types.FunctionType) else None)
            for _, owner, attr, value, _ in entries
        ]
        guarded = [(path, (resolve(path) or (None, None, None))[2]) for path in GUARDED_ATTRIBUTES]
        modules = [(name, sys.modules.get(name)) for name in _guarded_names]
        _watched = (out, (seen, guarded, modules))
    return out


def _unchanged(watched) -> bool:
    """True when every object of the first snapshot is still in its place, with its code: the
    new snapshot would equal it (checked object by object, without building one)."""
    seen, guarded, modules = watched
    for name, module in modules:
        if sys.modules.get(name) is not module:
            return False
    for owner, attr, value, code in seen:
        if owner.__dict__.get(attr) is not value or (
            code is not None and value.__code__ is not code
        ):
            return False
    for path, value in guarded:
        found = resolve(path)
        if (found[2] if found else None) is not value:
            return False
    return True


def tampered(before: dict[str, int]) -> list[str]:
    if _watched is not None and before is _watched[0] and _unchanged(_watched[1]):
        return []
    now = snapshot()
    return [path for path, ident in before.items() if now.get(path) != ident]

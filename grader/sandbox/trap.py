"""Runtime traps inside a worker: forbidden APIs and tampering with torch.

Runs in the untrusted worker. The traps report what they saw; the grader decides what it costs.
Installed before the student's file is imported, so `from torch.autograd import grad` in that
file binds the trapped function.
"""

from __future__ import annotations

import types

import torch

# torch attributes a submission might replace to fool a grader that compares in-process.
GUARDED_ATTRIBUTES = (
    "torch.allclose", "torch.isclose", "torch.equal", "torch.isfinite", "torch.isnan",
    "torch.isinf", "torch.testing.assert_close", "torch.Tensor.__eq__", "torch.Tensor.__ne__",
    "torch.Tensor.allclose", "torch.Tensor.equal", "torch.get_default_dtype",
    "torch.Tensor.backward", "torch.autograd.grad", "torch.autograd.backward",
)


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
                    if not attr.startswith("_") and callable(value) and not isinstance(value, type):
                        self._wrap(obj, attr, f"{pattern}.{attr}", value)
            elif callable(obj) and not isinstance(obj, type):
                self._wrap(owner, name, pattern, obj)

    def _wrap(self, owner, name: str, path: str, original) -> None:
        if path in self.originals:
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
        self.originals[path] = original

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


def snapshot() -> dict[str, int]:
    """Identities of the guarded torch attributes, to notice later replacement."""
    out = {}
    for path in GUARDED_ATTRIBUTES:
        found = resolve(path)
        out[path] = id(found[2]) if found else 0
    return out


def tampered(before: dict[str, int]) -> list[str]:
    now = snapshot()
    return [path for path, ident in before.items() if now.get(path) != ident]

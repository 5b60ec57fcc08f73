"""What a call changed in the caller's objects: a snapshot of every object a scenario's setup
made (tensors, modules, and lists, tuples and dicts of them, a few levels deep) before the call,
and the list of changes after it, by path (`params[1]`, `model.0.weight`).

The changes one path can show:

- `value`: a tensor's values differ (NaN equal to NaN);
- `in_place`: its version counter moved (written in place, even if the values came back);
- `requires_grad`: its flag differs;
- `grad`: its .grad was set, removed, replaced or changed;
- `replaced`: a list, tuple or dict holds other objects than the caller's (a new tensor in
  place of the caller's), or a module holds other parameters;
- `training`: a module's (or a submodule's) train/eval flag differs;
- `hook`: a tensor's hooks (register_hook, register_post_accumulate_grad_hook) or a module's
  (forward, forward pre, backward, backward pre) are not the ones it had: a hook left behind
  runs on every later forward or backward of the caller's.

The same code observes the reference's run in the grader's process and the student's in the
worker, so the two lists compare directly (grader.checks.effects).
"""

from __future__ import annotations

import torch
from torch import nn

from grader.sandbox.probes import _disable_subclass, plain

# Captured at the template's import, before any student code can replace them.
_Module = nn.Module
_named_parameters = nn.Module.named_parameters
_named_modules = nn.Module.named_modules

KEY = "__effects__"
"""Where a scenario's observations hold the changes (a name no setup object can have)."""
DEPTH = 4
MAX_PATHS = 256


def snapshot(objs: dict) -> list:
    """(path, kind, object, state) for each object reachable from the setup's dict."""
    out: list = []
    for name, obj in list(dict.items(objs)):
        _walk(obj, str(name), out, 0)
    return out


def changes(before: list) -> dict:
    """{path: [change, ...]} for every path whose object changed since the snapshot."""
    out: dict = {}
    for path, kind, obj, state in before:
        now = _state(kind, obj)
        found = [c for c in _compare(kind, state, now)]
        if found:
            out[path] = found
    return out


def _walk(obj, path: str, out: list, depth: int) -> None:
    if len(out) >= MAX_PATHS:
        return
    if isinstance(obj, torch.Tensor):
        out.append((path, "tensor", obj, _state("tensor", obj)))
    elif isinstance(obj, _Module):
        out.append((path, "module", obj, _state("module", obj)))
        for name, p in _named_parameters(obj):
            _walk(p, f"{path}.{name}", out, depth + 1)
    elif depth < DEPTH and type(obj) in (list, tuple):
        out.append((path, "items", obj, _state("items", obj)))
        for i, v in enumerate(obj):
            _walk(v, f"{path}[{i}]", out, depth + 1)
    elif depth < DEPTH and type(obj) is dict:
        out.append((path, "items", obj, _state("items", obj)))
        for k, v in list(dict.items(obj)):
            _walk(v, f"{path}[{str(k)[:40]!r}]", out, depth + 1)


def _state(kind: str, obj):
    if kind == "tensor":
        with _disable_subclass():
            # A non-leaf holds no .grad unless it retains one (reading it would only warn).
            grad = obj.grad if obj.is_leaf or obj.retains_grad else None
            return (
                obj._version,
                plain(obj).clone(),
                bool(obj.requires_grad),
                grad,
                None if grad is None else (grad._version, plain(grad).clone()),
                _hooks(obj, _TENSOR_HOOKS),
            )
    if kind == "module":
        return (
            tuple((n, vars(m).get("training")) for n, m in _named_modules(obj)),
            tuple((n, id(p)) for n, p in _named_parameters(obj)),
            tuple((n, _hooks(m, _MODULE_HOOKS)) for n, m in _named_modules(obj)),
        )
    if type(obj) is dict:
        return tuple((k, id(v)) for k, v in dict.items(obj))
    return tuple(id(v) for v in obj)


_TENSOR_HOOKS = ("_backward_hooks", "_post_accumulate_grad_hooks")
_MODULE_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def tensor_hooks(t: torch.Tensor) -> tuple:
    """The ids of the hooks registered on a tensor, per kind (a drawn argument's, before and
    after a call: sandbox.probes.call)."""
    return _hooks(t, _TENSOR_HOOKS)


def _hooks(obj, names) -> tuple:
    """The ids of the hooks registered on a tensor or module, per kind (read from the object's
    own attributes, which torch.Tensor.register_hook(p, fn) fills as p.register_hook does)."""
    out = []
    for name in names:
        try:
            found = (
                vars(obj).get(name)
                if not isinstance(obj, torch.Tensor)
                else getattr(obj, name, None)
            )
            out.append(tuple(found) if isinstance(found, dict) else ())
        except Exception:  # a tensor that cannot say: no hooks seen
            out.append(())
    return tuple(out)


def _compare(kind: str, was, now) -> list[str]:
    if kind == "tensor":
        found = []
        if not _same(was[1], now[1]):
            found.append("value")
        if now[0] != was[0]:
            found.append("in_place")
        if now[2] != was[2]:
            found.append("requires_grad")
        if now[3] is not was[3] or (
            was[4] is not None and (now[4][0] != was[4][0] or not _same(was[4][1], now[4][1]))
        ):
            found.append("grad")
        if now[5] != was[5]:
            found.append("hook")
        return found
    if kind == "module":
        return (
            (["training"] if now[0] != was[0] else [])
            + (["replaced"] if now[1] != was[1] else [])
            + (["hook"] if now[2] != was[2] else [])
        )
    return ["replaced"] if now != was else []


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if torch.equal(a, b):
        return True
    if a.is_floating_point() or a.is_complex():
        return bool(
            (torch.isnan(a) == torch.isnan(b)).all()
            and torch.equal(torch.nan_to_num(a), torch.nan_to_num(b))
        )
    return False

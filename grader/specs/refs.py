"""Reference values: the spec's torch expressions, evaluated and differentiated by autograd.

Runs only in the grader's process, on the grader's copies of the inputs; the student's file
never defines or touches what it is compared with.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from grader.specs.model import Expect, Reference

NAMESPACE = {"__builtins__": {}, "torch": torch, "F": F, "math": math}


class SpecBug(Exception):
    """A reference that cannot be evaluated: a bug in the spec, never the student's fault."""


def evaluate(ref: Reference, inputs: dict):
    scope = dict(NAMESPACE)
    scope.update({name: inputs[name] for name in ref.args})
    try:
        return eval(ref.code, scope)  # noqa: S307 (spec code, trusted, not the student's)
    except Exception as exc:
        raise SpecBug(f"reference {ref.name} failed: {type(exc).__name__}: {exc}") from exc


def expected(expect: Expect, refs: dict, inputs: dict):
    """The value a correct answer returns for these inputs (a tensor, tuple or dict)."""
    ref = refs[expect.of]
    if not expect.grad:
        with torch.no_grad():
            return evaluate(ref, inputs)
    names = _wrt_names(expect.wrt)
    leaves = {n: inputs[n].detach().clone().requires_grad_(True) for n in names}
    scope = {n: leaves.get(n, v) for n, v in inputs.items()}
    with torch.enable_grad():
        out = evaluate(ref, scope)
        upstream = inputs[expect.upstream] if expect.upstream else torch.ones_like(out)
        grads = torch.autograd.grad(
            out, [leaves[n] for n in names], grad_outputs=upstream, allow_unused=True
        )
    grads = {
        n: (g if g is not None else torch.zeros_like(leaves[n])).detach()
        for n, g in zip(names, grads)
    }
    if isinstance(expect.wrt, str):
        return grads[expect.wrt]
    if isinstance(expect.wrt, tuple):
        return tuple(grads[n] for n in expect.wrt)
    return {key: grads[n] for key, n in expect.wrt.items()}


def _wrt_names(wrt) -> list[str]:
    if isinstance(wrt, str):
        return [wrt]
    if isinstance(wrt, tuple):
        return list(dict.fromkeys(wrt))
    return list(dict.fromkeys(wrt.values()))

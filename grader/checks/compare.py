"""Comparing what a student's code returned with what torch autograd computed.

Produces data (a Mismatch), not text: the worst element, its index, both values, the errors and
the tolerance; NaN/inf disagreements first, since they are the clearest signal.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from grader.common.wire import Opaque, TensorFacts

# (rtol, atol) per dtype, unless the spec or a check says otherwise.
DEFAULT_TOLERANCES = {
    "float64": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "bfloat16": (1.6e-2, 1e-5),
    "float16": (1e-3, 1e-5),
}


@dataclass
class Mismatch:
    kind: str
    """type, structure, items, shape, dtype, nonfinite or value. items: two structures of the
    same kind that differ in length or keys; got and want hold them (the decoded result and
    the expected value) for the message to quote."""
    where: str
    """Which part of the result: `result`, `result[1]`, `result["W1"]`."""
    got: object = None
    want: object = None
    index: tuple | None = None
    abs_err: float | None = None
    rel_err: float | None = None
    rtol: float | None = None
    atol: float | None = None
    count: int = 0
    """How many elements disagree."""
    total: int = 0
    dtype: str | None = None
    """The expected dtype's name (float64, ...) for value and nonfinite mismatches."""
    float32_values: bool = False
    """A float64 result whose every element is a float32 number (and torch's are not): the
    mark of a computation done in float32 and cast back."""


def type_name(value) -> str:
    if isinstance(value, TensorFacts):
        return value.type_name
    if isinstance(value, Opaque):
        return value.type_name
    return type(value).__name__


def tolerance(dtype: torch.dtype, overrides: dict) -> tuple[float, float]:
    name = str(dtype).removeprefix("torch.")
    return overrides.get(name, DEFAULT_TOLERANCES.get(name, (0.0, 0.0)))


def compare(
    actual, expected, *, tolerances: dict | None = None, values: bool = True, where: str = "result"
) -> Mismatch | None:
    """The first disagreement between actual (decoded worker data) and expected, or None."""
    tolerances = tolerances or {}
    if isinstance(expected, torch.Tensor):
        return _tensor(actual, expected, tolerances, values, where)
    if isinstance(expected, tuple):
        if not isinstance(actual, (tuple, list)):
            return Mismatch(
                "structure", where, got=type_name(actual), want=f"tuple of {len(expected)}"
            )
        if len(actual) != len(expected):
            return Mismatch("items", where, got=actual, want=expected)
        for i, (a, e) in enumerate(zip(actual, expected)):
            found = compare(a, e, tolerances=tolerances, values=values, where=f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return Mismatch(
                "structure",
                where,
                got=type_name(actual),
                want="dict with keys " + ", ".join(map(repr, expected)),
            )
        if set(actual) != set(expected):
            return Mismatch("items", where, got=actual, want=expected)
        for key, e in expected.items():
            found = compare(
                actual[key], e, tolerances=tolerances, values=values, where=f'{where}["{key}"]'
            )
            if found:
                return found
        return None
    raise TypeError(f"cannot compare with {type(expected).__name__}")


def _tensor(actual, expected: torch.Tensor, tolerances, values, where) -> Mismatch | None:
    if not isinstance(actual, TensorFacts):
        return Mismatch("type", where, got=type_name(actual), want="torch.Tensor")
    if not actual.exact_type:
        return Mismatch("type", where, got=actual.type_name, want="torch.Tensor")
    a = actual.data
    if tuple(a.shape) != tuple(expected.shape):
        return Mismatch("shape", where, got=tuple(a.shape), want=tuple(expected.shape))
    if a.dtype != expected.dtype:
        return Mismatch("dtype", where, got=a.dtype, want=expected.dtype)
    if not values or a.numel() == 0:
        return None
    rtol, atol = tolerance(expected.dtype, tolerances)
    dtype = str(expected.dtype).removeprefix("torch.")
    e = expected.detach()
    close = torch.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if bool(close.all()):
        # The common case, in one pass: isclose holds for a NaN only beside a NaN and for an
        # infinity only beside the same one, so no non-finite value can disagree here.
        return None
    a_fin, e_fin = torch.isfinite(a), torch.isfinite(e)
    bad = (a_fin != e_fin) | (~a_fin & ~e_fin & ~((a == e) | (a.isnan() & e.isnan())))
    if bad.any():
        return _at(Mismatch("nonfinite", where, rtol=rtol, atol=atol, dtype=dtype), a, e, bad)
    a64, e64 = a.double(), e.double()
    excess = torch.where(
        close, torch.full_like(a64, -torch.inf), (a64 - e64).abs() - (atol + rtol * e64.abs())
    )
    m = Mismatch(
        "value",
        where,
        rtol=rtol,
        atol=atol,
        dtype=dtype,
        float32_values=a.dtype == torch.float64 and _in_float32(a) and not _in_float32(e),
    )
    return _at(m, a, e, ~close, excess)


def _in_float32(t: torch.Tensor) -> bool:
    return bool((t == t.float().double()).all())


def _at(m: Mismatch, a, e, bad, score=None) -> Mismatch:
    flat = (
        int(score.reshape(-1).argmax()) if score is not None else int(bad.reshape(-1).nonzero()[0])
    )
    index = (
        tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), a.shape)) if a.dim() else ()
    )
    got, want = a.reshape(-1)[flat].item(), e.reshape(-1)[flat].item()
    m.index, m.got, m.want = index, got, want
    m.count, m.total = int(bad.sum()), a.numel()
    if m.kind == "value":
        m.abs_err = abs(got - want)
        m.rel_err = m.abs_err / abs(want) if want else float("inf")
    return m

"""Short text for values shown to students (counterexamples): numbers to 4 significant digits
(4.868e-67, not 4.868012345678901e-67), dtype and layout, and a long tensor as its summary."""

from __future__ import annotations

import math

import torch

MAX_ELEMENTS = 12
"""A tensor of more elements is shown as its shape, dtype, least and greatest value and its first
few values: a dozen numbers is what a reader takes in at once."""
DIGITS = 4


def value(v) -> str:
    if isinstance(v, torch.Tensor):
        return tensor(v)
    if isinstance(v, float):
        return number(v)
    return repr(v)


def number(x) -> str:
    """A float to DIGITS significant digits, still a float literal (3.0, 0.1, 4.868e-67, -inf);
    ints and bools as they are."""
    if not isinstance(x, float):
        return repr(x)
    if math.isnan(x) or math.isinf(x) or (x.is_integer() and abs(x) < 1e15):
        return repr(x)  # (nan, inf, 3.0, 123456.0: already short, and exact)
    text = f"{x:.{DIGITS}g}"
    return text if any(c in text for c in ".en") else text + ".0"


def _nested(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_nested(x) for x in v) + "]"
    return number(v)


def tensor(t: torch.Tensor) -> str:
    dtype = str(t.dtype).removeprefix("torch.")
    layout = "" if t.is_contiguous() or t.numel() <= 1 else ", non-contiguous"
    if t.numel() > MAX_ELEMENTS:
        flat = t.detach().reshape(-1)
        head = ", ".join(number(x) for x in flat[:6].tolist())
        span = ""
        if t.dtype.is_floating_point or not (t.dtype.is_complex or t.dtype == torch.bool):
            low, high = flat.min().item(), flat.max().item()
            if low == high:  # (the simplest input of a shape: judge.simplest)
                return f"tensor(shape={list(t.shape)}, dtype={dtype}{layout}, all {number(low)})"
            span = f", min {number(low)}, max {number(high)}"
        return (
            f"tensor(shape={list(t.shape)}, dtype={dtype}{layout}{span}, "
            f"first values [{head}, ...])"
        )
    body = _nested(t.detach().tolist())
    if t.dim() == 0:
        return f"tensor({body}, dtype={dtype})"
    return f"tensor({body}, dtype={dtype}{layout})"


def size(n: int) -> str:
    """A size in bytes as a student reads it: 1.5 GiB, 600 MiB, 12 KiB."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def counterexample(check, inputs: dict | None) -> str | None:
    if not inputs:
        return None
    text = ", ".join(f"{a.name} = {value(inputs[a.name])}" for a in check.args if a.name in inputs)
    held = inputs.get("__state__") or {}  # (grader.specs.strategies.STATE: a starting state)
    for name, grad in held.items():
        text += (
            f"; {name} requires grad and holds an old {name}.grad = {value(grad)} "
            f"({name}.requires_grad_(); {name}.grad = ...)"
        )
    return text

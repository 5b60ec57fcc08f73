"""Short, exact text for values shown to students (counterexamples)."""

from __future__ import annotations

import torch

MAX_ELEMENTS = 24


def value(v) -> str:
    if isinstance(v, torch.Tensor):
        return tensor(v)
    if isinstance(v, float):
        return repr(v)
    return repr(v)


def tensor(t: torch.Tensor) -> str:
    dtype = str(t.dtype).removeprefix("torch.")
    layout = "" if t.is_contiguous() or t.numel() <= 1 else ", non-contiguous"
    if t.numel() > MAX_ELEMENTS:
        flat = t.reshape(-1)[:8].tolist()
        head = ", ".join(repr(x) for x in flat)
        return f"tensor(shape={list(t.shape)}, dtype={dtype}{layout}, first values [{head}, ...])"
    body = repr(t.tolist())
    if t.dim() == 0:
        return f"tensor({body}, dtype={dtype})"
    return f"tensor({body}, dtype={dtype}{layout})"


def counterexample(check, inputs: dict | None) -> str | None:
    if not inputs:
        return None
    return ", ".join(f"{a.name} = {value(inputs[a.name])}" for a in check.args if a.name in inputs)

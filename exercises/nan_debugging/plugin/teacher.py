"""What torch's anomaly detection names for a recipe: the nan_debugging exercise's answer, computed
by the teacher's grader (a students' release judges from what it recorded)."""

from __future__ import annotations

import re
import warnings

import torch

from .recipes import build

_ANOMALY = re.compile(r"Function '(\w+)' returned nan values in its \d+th output")


def first_nan_node(recipe, inputs) -> str | None:
    """What torch's anomaly detection names as the first backward node returning NaN, or None.

    Runs in the grader's process on its own copies of the inputs; the global anomaly setting is
    restored by the context manager, and its warnings are not the grader's output.
    """
    fn = build(recipe)
    leaves = [t.detach().clone().requires_grad_(True) for t in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly(check_nan=True), torch.enable_grad():
            out = fn(*leaves)
            try:
                torch.autograd.grad(out, leaves, allow_unused=True)
            except RuntimeError as exc:
                found = _ANOMALY.search(str(exc))
                if found is None:
                    raise
                return found.group(1)
    return None

"""Counterexamples as students read them: exact values, dtype, layout, and a cap on length."""

from __future__ import annotations

import torch

from grader.common import textform
from grader.specs.model import TensorArg


class _Check:
    args = (TensorArg("x", "any"), TensorArg("g", "any"))


def test_small_tensors_are_exact_with_dtype():
    assert (
        textform.tensor(torch.tensor([0.1, -2.0], dtype=torch.float64))
        == "tensor([0.1, -2.0], dtype=float64)"
    )
    assert textform.tensor(torch.tensor(3.5)) == "tensor(3.5, dtype=float32)"
    assert textform.tensor(torch.zeros(0, 2)) == "tensor([], dtype=float32)"


def test_non_contiguous_layout_is_named():
    t = torch.arange(6.0).reshape(2, 3).t()
    assert (
        textform.tensor(t)
        == "tensor([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], dtype=float32, non-contiguous)"
    )


def test_large_tensors_are_summarised():
    text = textform.tensor(torch.arange(100.0).reshape(10, 10))
    assert text.startswith("tensor(shape=[10, 10], dtype=float32, first values [0.0, 1.0,")
    assert len(text) < 200


def test_counterexample_follows_the_spec_order_and_skips_missing():
    inputs = {"g": torch.tensor([1.0]), "x": torch.tensor([2.0]), "extra": 1}
    assert (
        textform.counterexample(_Check, inputs)
        == "x = tensor([2.0], dtype=float32), g = tensor([1.0], dtype=float32)"
    )
    assert textform.counterexample(_Check, {"x": 0.5}) == "x = 0.5"
    assert textform.counterexample(_Check, None) is None

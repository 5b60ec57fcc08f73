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
    assert text.startswith(
        "tensor(shape=[10, 10], dtype=float32, min 0.0, max 99.0, first values [0.0, 1.0,"
    )
    assert len(text) < 200


def test_numbers_are_short_floats_to_four_significant_digits():
    """The issue's counterexample: values such as 4.868012345e-67 and 2.2250738585072014e-308
    filled lines; four significant digits keep their size and sign, and a float stays a float."""
    t = torch.tensor(
        [4.868012345e-67, 2.2250738585072014e-308, 11.141743659973145, -0.0, 3.0, float("-inf")],
        dtype=torch.float64,
    )
    assert (
        textform.tensor(t)
        == "tensor([4.868e-67, 2.225e-308, 11.14, -0.0, 3.0, -inf], dtype=float64)"
    )
    assert textform.value(0.1) == "0.1" and textform.value(123456.0) == "123456.0"
    assert textform.value(1e-310) == "1e-310" and textform.value(2) == "2"


def test_a_shape_of_24_elements_is_a_summary_not_twelve_lines():
    t = torch.full((4, 1, 2, 3), 4.868e-67, dtype=torch.float64)
    t[0, 0, 0, 0] = -2.5
    text = textform.tensor(t)
    assert text.startswith("tensor(shape=[4, 1, 2, 3], dtype=float64, min -2.5, max 4.868e-67,")
    assert len(text) < 160


def test_counterexample_follows_the_spec_order_and_skips_missing():
    inputs = {"g": torch.tensor([1.0]), "x": torch.tensor([2.0]), "extra": 1}
    assert (
        textform.counterexample(_Check, inputs)
        == "x = tensor([2.0], dtype=float32), g = tensor([1.0], dtype=float32)"
    )
    assert textform.counterexample(_Check, {"x": 0.5}) == "x = 0.5"
    assert textform.counterexample(_Check, None) is None


def test_a_long_tensor_of_one_value_says_so():
    t = torch.ones(2, 3, 4, 5, dtype=torch.float64)
    assert textform.tensor(t) == "tensor(shape=[2, 3, 4, 5], dtype=float64, all 1.0)"

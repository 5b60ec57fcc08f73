"""Comparisons report the first disagreement as data: kind, place, values, errors."""

from __future__ import annotations

import torch

from grader.checks.compare import compare
from grader.common.wire import Opaque, TensorFacts


def facts(t, **kw):
    return TensorFacts(data=t, **kw)


def test_equal_within_tolerance():
    e = torch.tensor([1.0, 2.0], dtype=torch.float64)
    assert compare(facts(e + 1e-13), e) is None


def test_worst_element_and_errors():
    e = torch.zeros(2, 3, dtype=torch.float64)
    a = e.clone()
    a[1, 2], a[0, 0] = 0.5, 0.1
    m = compare(facts(a), e)
    assert (m.kind, m.index, m.got, m.want, m.count, m.total) == ("value", (1, 2), 0.5, 0.0, 2, 6)
    assert m.abs_err == 0.5 and m.rel_err == float("inf")


def test_nonfinite_is_reported_first():
    e = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    a = torch.tensor([5.0, float("nan"), 3.0], dtype=torch.float64)
    m = compare(facts(a), e)
    assert m.kind == "nonfinite" and m.index == (1,) and m.count == 1


def test_matching_nan_and_inf_agree():
    e = torch.tensor([float("nan"), float("inf")], dtype=torch.float64)
    assert compare(facts(e.clone()), e) is None


def test_type_shape_dtype():
    e = torch.zeros(3, dtype=torch.float64)
    assert compare(Opaque("ndarray"), e).kind == "type"
    assert compare(facts(e, exact_type=False, type_name="Liar"), e).got == "Liar"
    assert compare(facts(torch.zeros(1, 3, dtype=torch.float64)), e).kind == "shape"
    assert compare(facts(torch.zeros(3)), e).kind == "dtype"


def test_structures_name_the_part():
    e = {"W1": torch.zeros(2), "b1": torch.zeros(1)}
    m = compare({"W1": facts(torch.zeros(2)), "b1": facts(torch.ones(1))}, e)
    assert m.where == 'result["b1"]'
    assert compare({"W1": facts(torch.zeros(2))}, e).kind == "items"  # a key is missing
    m = compare((facts(torch.zeros(2)), facts(torch.ones(2))), (torch.zeros(2), torch.zeros(2)))
    assert m.where == "result[1]"
    assert compare(facts(torch.zeros(2)), (torch.zeros(2), torch.zeros(2))).kind == "structure"
    # Two structures of one kind that differ in size: both of them, for the message to quote.
    got = [facts(torch.zeros(2))] * 3
    m = compare(got, (torch.zeros(2), torch.zeros(2)))
    assert m.kind == "items" and m.got is got and len(m.want) == 2


def test_float32_tolerance_is_looser():
    e = torch.tensor([1.0])
    assert compare(facts(torch.tensor([1.000001])), e) is None
    assert compare(facts(torch.tensor([1.001])), e).kind == "value"

"""vjp and vjp_finite: backward through the student's function against autograd's VJP."""

from __future__ import annotations

import pytest
import sigmoids
import torch
from conftest import EXERCISES, find_check
from inprocess import judge, probe

from grader.common.errors import SpecError
from grader.loader import specfile

X = torch.tensor([[-2.0, 0.5, 3.0], [1.0, -0.25, 0.0]], dtype=torch.float64)
INPUTS = {"x": X.T, "g": torch.tensor([[2.0, -1.0], [0.5, 3.0], [-2.0, 1.5]], dtype=torch.float64)}


@pytest.fixture(scope="module")
def ex():
    return specfile.load(EXERCISES / "custom_sigmoid" / "exercise.yaml")


def test_request_sends_the_upstream_to_backward_not_to_the_function(ex):
    reply, values = probe(find_check(ex, "backward_vjp"), INPUTS, sigmoid=sigmoids.GOOD)
    assert reply["ok"] is True and len(values["args_after"]) == 1
    grad = values["grads"][0].data
    x = INPUTS["x"].clone().requires_grad_(True)
    (want,) = torch.autograd.grad(torch.sigmoid(x), x, INPUTS["g"])
    assert torch.allclose(grad, want, rtol=1e-12, atol=0)


def test_vjp_passes_a_right_backward_on_a_noncontiguous_input(ex):
    assert not INPUTS["x"].is_contiguous()
    assert judge(ex, find_check(ex, "backward_vjp"), INPUTS, sigmoid=sigmoids.GOOD) is None


def test_vjp_names_an_ignored_grad_output(ex):
    ignores = sigmoids.function(sigmoids.plain, lambda g, y, x: y * (1 - y))
    verdict = judge(ex, find_check(ex, "backward_vjp"), INPUTS, sigmoid=ignores)
    assert verdict.message.en.startswith("backward ignores grad_output")
    assert "x.grad[" in verdict.message.en and "mengabaikan grad_output" in verdict.message.id
    assert verdict.mistake.id == "ignores_grad_output"  # what a class report counts


def test_vjp_wrong_derivative_is_not_called_an_ignored_upstream(ex):
    wrong = sigmoids.function(sigmoids.plain, lambda g, y, x: g * y)
    verdict = judge(ex, find_check(ex, "backward_vjp"), INPUTS, sigmoid=wrong)
    assert "ignores" not in verdict.message.en and verdict.mistake is None
    assert (
        "The gradient of `x` through backward (grad_output = `g`) is wrong" in verdict.message.en
    )


def test_all_ones_upstream_is_not_blamed_for_being_ignored(ex):
    ones = dict(INPUTS, g=torch.ones(3, 2, dtype=torch.float64))
    wrong = sigmoids.function(sigmoids.plain, lambda g, y, x: y * (1 - y) * 2)
    verdict = judge(ex, find_check(ex, "backward_vjp"), ones, sigmoid=wrong)
    assert "ignores" not in verdict.message.en


def test_vjp_none_gradient_says_return_one(ex):
    nothing = sigmoids.function(sigmoids.plain, lambda g, y, x: None)
    verdict = judge(ex, find_check(ex, "backward_vjp"), INPUTS, sigmoid=nothing)
    assert "returned None" in verdict.message.en


def test_vjp_finite_finds_nan_where_torch_is_finite(ex):
    naive = sigmoids.function(
        sigmoids.plain, lambda g, y, x: g * torch.exp(-x) / (1 + torch.exp(-x)) ** 2
    )
    wide = {
        "x": torch.tensor([1.0, -800.0], dtype=torch.float64),
        "g": torch.tensor([1.0, 1.0], dtype=torch.float64),
    }
    verdict = judge(ex, find_check(ex, "backward_finite"), wide, sigmoid=naive)
    assert "x.grad[1] = nan (at x[1] = -800)" in verdict.message.en
    assert judge(ex, find_check(ex, "backward_finite"), wide, sigmoid=sigmoids.GOOD) is None


SPEC = """\
format: 1
id: tiny
title: {id: t, en: t}
instructions: {id: t, en: t}
references:
  s: {args: [x], expr: torch.sigmoid(x)}
checks:
  - id: v
    kind: vjp
    title: {id: t, en: t}
    function: f
    points: 1
    args:
      x: {shape: any}
      g: {like: x}
    expect: EXPECT
"""


@pytest.mark.parametrize(
    "expect, message",
    [
        ("{value_of: s}", "need `expect: {grad_of: REF"),
        ("{grad_of: s, wrt: x, upstream: x}", "cannot also be differentiated"),
    ],
)
def test_spec_errors_name_the_key(tmp_path, expect, message):
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(SPEC.replace("EXPECT", expect))
    with pytest.raises(SpecError) as err:
        specfile.load(folder / "exercise.yaml", root=tmp_path)
    assert err.value.key == "checks[0].expect" and message in err.value.message

"""gradcheck and gradgradcheck: the worker's jacobian probe gives data, the grader judges."""

from __future__ import annotations

import pytest
import sigmoids
import torch
from conftest import EXERCISES, find_check
from inprocess import judge, probe

from grader.checks.gradcheck import analytical, numerical, perturbed
from grader.common.errors import SpecError
from grader.common.wire import TensorFacts
from grader.loader import specfile

X = {"x": torch.tensor([-3.0, 0.0, 0.5, 4.0], dtype=torch.float64)}
XG = dict(X, g=torch.tensor([1.5, -2.0, 0.25, 1.0], dtype=torch.float64))


@pytest.fixture(scope="module")
def ex():
    return specfile.load(EXERCISES / "custom_sigmoid" / "exercise.yaml")


def test_perturbed_points_move_one_element_each_way():
    points = perturbed([torch.zeros(2, dtype=torch.float64)], 0.5)
    assert [p[0].tolist() for p in points] == [[0.5, 0], [-0.5, 0], [0, 0.5], [0, -0.5]]


def test_numerical_and_analytical_jacobians_of_a_linear_map():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)  # out = a @ x
    x = torch.tensor([0.3, -0.7], dtype=torch.float64)
    base = [TensorFacts(a @ x)]
    points = [[TensorFacts(a @ p[0])] for p in perturbed([x], 1e-3)]
    assert torch.allclose(numerical([x], base, points, 1e-3), a.T)
    rows = [(TensorFacts(a[j]),) for j in range(3)]
    assert torch.equal(analytical([x], base, rows), a.T)
    assert torch.equal(
        analytical([x], base, [None, None, None]), torch.zeros(2, 3, dtype=torch.float64)
    )


def test_gradcheck_passes_a_right_backward(ex):
    assert judge(ex, find_check(ex, "gradcheck"), X, sigmoid=sigmoids.GOOD) is None


def test_gradcheck_names_the_worst_jacobian_entry(ex):
    wrong = sigmoids.function(sigmoids.plain, lambda g, y, x: g * y)
    verdict = judge(ex, find_check(ex, "gradcheck"), X, sigmoid=wrong)
    assert verdict.status == "failed"
    # y = σ(4) is the farthest from y(1 - y): the worst entry is the last diagonal one
    assert (
        "∂sigmoid(...)[3]/∂x[3]: your backward 0.98201379, numerical 0.0176627"
        in verdict.message.en
    )
    assert "numerical" in verdict.message.en and "numerik" in verdict.message.id


def test_gradcheck_sees_an_ignored_upstream_off_the_diagonal(ex):
    ignores = sigmoids.function(sigmoids.plain, lambda g, y, x: y * (1 - y))
    verdict = judge(ex, find_check(ex, "gradcheck"), X, sigmoid=ignores)
    assert verdict is not None and "numerical 0 (" in verdict.message.en


def test_gradcheck_without_grad_fn_says_apply(ex):
    verdict = judge(
        ex, find_check(ex, "gradcheck"), X, sigmoid=lambda x: sigmoids.plain(x).detach()
    )
    assert "no grad_fn" in verdict.message.en and ".apply(...)" in verdict.message.en


def test_gradcheck_wants_float64_outputs(ex):
    verdict = judge(ex, find_check(ex, "gradcheck"), X, sigmoid=lambda x: sigmoids.GOOD(x.float()))
    assert "float32" in verdict.message.en


def test_gradgradcheck_passes_a_differentiable_backward(ex):
    assert judge(ex, find_check(ex, "double_backward"), XG, sigmoid=sigmoids.GOOD) is None


def test_gradgradcheck_names_a_backward_under_no_grad(ex):
    stuck = sigmoids.function(sigmoids.plain, sigmoids.no_grad)
    verdict = judge(ex, find_check(ex, "double_backward"), XG, sigmoid=stuck)
    assert "cannot be differentiated again" in verdict.message.en
    assert "x.grad[" in verdict.message.en and "torch.no_grad()" in verdict.message.id


def test_probe_reports_points_and_rows_but_no_verdict(ex):
    reply, values = probe(find_check(ex, "gradcheck"), X, sigmoid=sigmoids.GOOD)
    data = values["data"]
    assert set(data) == {"base", "points", "rows", "differentiable"}
    assert len(data["points"]) == 2 * 4 and len(data["rows"]) == 4
    assert data["differentiable"] == [True]
    assert "passed" not in reply and "verdict" not in reply


GRADCHECK = """\
format: 1
id: tiny
title: {id: t, en: t}
instructions: {id: t, en: t}
dims: {G: [1, 4]}
checks:
  - id: gc
    kind: KIND
    title: {id: t, en: t}
    function: f
    points: 1
    args:
      x: {shape: [G], requires_grad: true}
      g: {like: x}
EXTRA
"""


@pytest.mark.parametrize(
    "kind, old, new, key, message",
    [
        (
            "gradcheck",
            "{shape: [G], requires_grad: true}",
            "{shape: any, requires_grad: true}",
            "checks[0].args",
            "needs a fixed, small shape",
        ),
        (
            "gradcheck",
            "{shape: [G], requires_grad: true}",
            "{shape: [G]}",
            "checks[0].args",
            "requires_grad: true",
        ),
        ("gradcheck", "EXTRA", "    dtypes: [float32]", "checks[0].dtypes", "float64 only"),
        ("gradgradcheck", "EXTRA", "", "checks[0].upstream", "upstream gradient"),
        ("gradgradcheck", "EXTRA", "    upstream: h", "checks[0].upstream", "upstream gradient"),
    ],
)
def test_spec_errors_name_the_key(tmp_path, kind, old, new, key, message):
    text = GRADCHECK.replace("KIND", kind).replace(old, new, 1).replace("EXTRA", "")
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(text)
    with pytest.raises(SpecError) as err:
        specfile.load(folder / "exercise.yaml", root=tmp_path)
    assert (err.value.key, err.value.file) == (key, "tiny/exercise.yaml")
    assert message in err.value.message


def test_an_output_shape_that_changes_near_the_input_is_named(ex):
    def jumpy(x):  # X["x"][0] is -3: a step of +eps changes the shape
        y = sigmoids.GOOD(x)
        return y if x[0] <= -3.0 else y[None]

    verdict = judge(ex, find_check(ex, "gradcheck"), X, sigmoid=jumpy)
    assert "gradcheck: the output's structure or shape changes" in verdict.message.en
    assert verdict.message.id.startswith("gradcheck: struktur atau shape hasil berubah")

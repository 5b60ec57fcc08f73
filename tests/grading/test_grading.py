"""grading.apply_constraints: what a trivial answer also has earns nothing on its own."""

from __future__ import annotations

import pytest
from conftest import find_check

from grader.checks import KINDS
from grader.grading.grade import apply_constraints, is_constraint
from grader.outcomes.results import CheckResult


def _rows(exercise, passed: set[str]):
    return [
        CheckResult(
            id=c.id,
            title=c.title,
            kind=c.kind,
            status="passed" if c.id in passed else "failed",
            points=c.points if c.id in passed else 0.0,
            max_points=c.points,
        )
        for c in exercise.checks
    ]


@pytest.mark.parametrize(
    "kind",
    [
        "gradcheck",
        "gradgradcheck",
        "vjp_finite",
        "finite",
        "shape_dtype",
        "inputs_untouched",
        "saved_tensors",
        "forbidden_api",
    ],
)
def test_kinds_a_trivial_answer_passes_are_constraints(kind):
    assert KINDS[kind].constraint


def test_gradcheck_alone_earns_nothing(exercises):
    # zeros / an identity / a constant: a backward consistent with its own forward.
    ex = exercises["custom_sigmoid"]
    rows = _rows(
        ex,
        {
            "gradcheck",
            "backward_finite",
            "forward_finite",
            "double_backward",
            "input_untouched",
            "no_builtin_sigmoid",
            "saved_for_backward",
        },
    )
    apply_constraints(list(ex.checks), rows)
    assert sum(r.points for r in rows) == 0
    assert {r.status for r in rows if r.max_points} <= {"failed", "skipped"}


def test_constraints_count_once_the_function_matches_somewhere(exercises):
    ex = exercises["custom_sigmoid"]
    rows = _rows(ex, {"forward_value", "gradcheck", "backward_finite"})
    apply_constraints(list(ex.checks), rows)
    by_id = {r.id: r for r in rows}
    assert by_id["gradcheck"].points == 1 and by_id["backward_finite"].points == 1


def test_a_spec_can_mark_a_check_a_constraint(exercises):
    # nan_debugging's safe_norm value is right in the starter: it counts with the gradient.
    ex = exercises["nan_debugging"]
    value = find_check(ex, "safe_norm_value")
    assert value.constraint and is_constraint(value)
    assert not is_constraint(find_check(ex, "safe_norm_grad"))
    rows = _rows(ex, {"safe_norm_value", "find_nan_source_clean"})
    apply_constraints(list(ex.checks), rows)
    assert sum(r.points for r in rows) == 0
    rows = _rows(ex, {"safe_norm_value", "safe_norm_grad"})
    apply_constraints(list(ex.checks), rows)
    assert {r.id: r.points for r in rows}["safe_norm_value"] == 2

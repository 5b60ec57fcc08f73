"""grading.apply_constraints: what a trivial answer also has earns nothing on its own; and
the paths a result names are relative to the submission folder."""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import find_check

from grader.checks import KINDS
from grader.grading import grade as grading
from grader.grading.grade import apply_constraints, is_constraint
from grader.outcomes.results import CheckResult
from grader.report import feedback, jsonout


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


def test_a_constraint_whose_value_checks_are_hidden_needs_some_value_points(exercises):
    # The visible phase of a function whose only value check is hidden: all zeros have the
    # right shape, and earn nothing for it until some value check of the exercise passes.
    ex = exercises["manual_gradient"]
    visible = [c for c in ex.checks if c.id != "df_value"]
    rows = _rows(ex, {"df_shape_dtype", "no_autograd_in_manual"})
    rows = [r for r in rows if r.id != "df_value"]
    apply_constraints(visible, rows)
    by_id = {r.id: r for r in rows}
    assert by_id["df_shape_dtype"].points == 0 and by_id["df_shape_dtype"].status == "skipped"
    assert "Not awarded yet" in by_id["df_shape_dtype"].message.en
    assert sum(r.points for r in rows) == 0
    rows = [r for r in _rows(ex, {"df_shape_dtype", "grad_g_value"}) if r.id != "df_value"]
    apply_constraints(visible, rows)
    assert {r.id: r.points for r in rows}["df_shape_dtype"] == 1


def test_an_exercise_of_constraints_only_earns_nothing_for_them(exercises):
    ex = exercises["manual_gradient"]
    only = [c for c in ex.checks if is_constraint(c)]
    rows = [r for r in _rows(ex, {c.id for c in only}) if r.id in {c.id for c in only}]
    apply_constraints(only, rows)
    assert sum(r.points for r in rows) == 0
    assert {r.status for r in rows} == {"skipped"}


def test_validate_fails_a_trivial_answer_that_scores_from_constraints_alone(exercises):
    from grader.authoring.validate import Trial, miss_reason
    from grader.outcomes.results import ExerciseResult

    ex = exercises["manual_gradient"]
    rows = _rows(ex, {"df_shape_dtype"})  # one point of 20: under the trivial share
    result = ExerciseResult(id=ex.id, title=ex.title, status="failed", checks=rows)
    constraints = frozenset(c.id for c in ex.checks if is_constraint(c))
    trial = Trial("trivial", "mutants/manual_gradient/trivial_zeros.py", result, None, constraints)
    assert result.score <= 0.1 * result.max_score
    assert not trial.ok and trial.unearned == ["df_shape_dtype"]
    assert "constraint checks alone (df_shape_dtype)" in miss_reason(trial, "en")
    with_value = _rows(ex, {"df_shape_dtype", "autograd_df_repeatable"})
    result = ExerciseResult(id=ex.id, title=ex.title, status="failed", checks=with_value)
    trial = Trial("trivial", "trivial_identity.py", result, None, constraints)
    assert trial.unearned == [] and trial.ok


def _texts(result) -> str:
    """Every string a result holds, and what its reports write (JSON, feedback)."""
    return "\n".join(
        [
            json.dumps(dataclasses.asdict(result), ensure_ascii=False),
            json.dumps(jsonout.result_dict(result, "en"), ensure_ascii=False),
            feedback.text(result, "en"),
            feedback.text(result, "id"),
        ]
    )


def test_a_missing_file_names_the_submission_folder_not_the_teachers_path(grade_files, tmp_path):
    result = grade_files({"manual_gradient_v2.py": "x = 1\n"}, ids=["manual_gradient"])
    e = result.exercises[0]
    assert e.status == "missing"
    assert "File manual_gradient.py not found in submission, but there is" in e.message.en
    assert "tidak ditemukan di submission" in e.message.id
    assert str(tmp_path) not in _texts(result)


def test_a_file_that_cannot_be_read_names_no_absolute_path(grade_files, tmp_path, monkeypatch):
    def refused(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(grading.notebook, "load", refused)
    result = grade_files({"nested/manual_gradient.py": "x = 1\n"}, ids=["manual_gradient"])
    e = result.exercises[0]
    assert e.status == "error" and e.file == "nested/manual_gradient.py"
    assert e.message.en == "manual_gradient.py cannot be read: Permission denied"
    assert str(tmp_path) not in _texts(result)


def test_a_bonus_counts_only_on_top_of_the_checks_it_builds_on(exercises):
    """custom_sigmoid's bonus gradgradcheck, passed while the backward's value check fails:
    skipped, naming the failing check; with every check of sigmoid passing it counts."""
    ex = exercises["custom_sigmoid"]
    bonus = next(c for c in ex.checks if c.bonus)
    every = {c.id for c in ex.checks}
    rows = _rows(ex, every - {"backward_vjp"})
    apply_constraints(list(ex.checks), rows)
    row = {r.id: r for r in rows}[bonus.id]
    assert (row.status, row.points) == ("skipped", 0.0)
    assert "backward_vjp" in row.message.en and row.message.id != row.message.en
    rows = _rows(ex, every)
    apply_constraints(list(ex.checks), rows)
    assert {r.id: r.points for r in rows}[bonus.id] == bonus.points
    rows = _rows(ex, every)
    apply_constraints(list(ex.checks), rows, only=set())  # the hidden phase: visible rows final
    assert {r.id: r.status for r in rows}[bonus.id] == "passed"


def test_not_awarded_names_several_functions_in_the_plural(exercises):
    # no_autograd_in_manual covers df, grad_g and mlp_grads: "df, grad_g, mlp_grads do not pass"
    ex = exercises["manual_gradient"]
    rows = _rows(ex, {"no_autograd_in_manual"})
    apply_constraints(list(ex.checks), rows)
    text = {r.id: r for r in rows}["no_autograd_in_manual"].message.en
    assert "df, grad_g, mlp_grads do not pass" in text, text
    rows = _rows(ex, {"df_shape_dtype"})
    apply_constraints(list(ex.checks), rows)
    assert "df does not pass" in {r.id: r for r in rows}["df_shape_dtype"].message.en

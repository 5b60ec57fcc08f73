"""nan_debugging end to end: the key, every variant and every mutant, with their messages."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from conftest import SOLUTIONS, by_id

from grader.grading.grade import grade_exercise

ID = "nan_debugging"
VARIANTS = sorted((SOLUTIONS / "variants" / ID).glob("*.py"))
MUTANTS = sorted((SOLUTIONS / "mutants" / ID).glob("*.py"))

# mutant file stem -> (a check that must fail, a word its English message must contain)
RAISES = {"norm_view_rows"}
"""Mutants that raise (a view of a strided tensor) rather than return a wrong value."""
EXPECTED = {
    "norm_view_rows": ("safe_norm_value", "view size"),
    "shifts_caller_logits": ("log_softmax_value", "an in-place operation on the caller's tensor"),
    "naive_exp_sum_log": ("log_softmax_large", "non-finite"),
    "rows_view_batch": ("safe_norm_value_2d", "shape"),
    "log_of_softmax": ("log_softmax_grad_large", "non-finite"),
    "epsilon_in_log": ("log_softmax_value", "epsilon"),
    "nan_to_num": ("log_softmax_large", "differ"),
    "global_max": ("log_softmax_grad_large", "non-finite"),
    "sum_all_rows": ("log_softmax_value", "differ"),
    "naive_sqrt": ("safe_norm_grad", "a kink"),
    "clamp_after_sqrt": ("safe_norm_grad", "not finite"),
    "where_trap": ("safe_norm_grad", "zero vector"),
    "large_epsilon": ("safe_norm_value", "differ"),
    "wrong_dimension": ("safe_norm_value", "shape"),
    "names_root": ("find_nan_source_poisoned", "first backward node"),
    "always_same_op": ("find_nan_source_poisoned", "'SqrtBackward0'"),
    "empty_string": ("find_nan_source_clean", "return None"),
    "anomaly_left_on": ("find_nan_source_restores", "must not change the global setting"),
    "forward_nan": ("find_nan_source_poisoned", "returned None"),
    "backward_sums_dim1": ("log_softmax_grad", "differ"),
    "max_then_log_ratio": ("log_softmax_large", "underflow"),
    "trivial_identity": ("log_softmax_value", "differ"),
    "trivial_zeros": ("safe_norm_grad", "differ"),
    # a subnormal row (an edge): v != 0 there, yet Σv² underflows to 0 and sqrt'(0) is infinite
    "norm_tests_v": (
        "safe_norm_grad",
        "The gradient through safe_norm at row [0, 0] is not finite",
    ),
}


def _grade(sandbox, exercise, path, config, tmp_path):
    sub = tmp_path / "submission"
    sub.mkdir(exist_ok=True)
    shutil.copyfile(path, sub / exercise.file)
    return grade_exercise(
        exercise=exercise, submission_dir=sub, config=config, sandbox=sandbox, include_hidden=True
    )


def test_every_mutant_has_an_expectation():
    assert {p.stem for p in MUTANTS} == set(EXPECTED)
    assert len(MUTANTS) >= 10 and len(VARIANTS) >= 3


def test_answer_key_gets_full_marks(grade_files):
    result = grade_files({"nan_debugging.py": SOLUTIONS / "nan_debugging.py"}, ids=[ID])
    ex = by_id(result)[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]
    assert ex.score == ex.max_score == 20


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_variant_gets_full_marks(grade_files, path):
    ex = by_id(grade_files({"nan_debugging.py": path}, ids=[ID]))[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_mutant_fails_its_check_with_a_message(sandbox, exercises, fast_config, tmp_path, path):
    # Only the check that must catch this mutant runs here; `grader validate` runs them all.
    check_id, word = EXPECTED[path.stem]
    full = exercises[ID]
    exercise = dataclasses.replace(full, checks=tuple(c for c in full.checks if c.id == check_id))
    ex = _grade(sandbox, exercise, path, fast_config, tmp_path)
    (row,) = ex.checks
    # A mutant whose code raises on some layout is an error there, not a wrong value.
    assert row.status == ("error" if path.stem in RAISES else "failed"), (row.status, row.message)
    assert word in row.message.en, row.message.en
    assert row.message.id and row.message.id != row.message.en
    if row.kind != "training_run" and path.stem not in RAISES:
        assert row.counterexample and "= tensor(" in row.counterexample


def test_starter_fails_where_the_story_says(grade_files, starters):
    starter = starters / "nan_debugging.py"
    ex = by_id(grade_files({"nan_debugging.py": starter}, ids=[ID]))[ID]
    rows = {c.id: c for c in ex.checks}
    # Its functions are right on small logits and non-zero rows, yet it scores nothing: the
    # value checks cover the range where they break, and safe_norm's right value counts only
    # once its gradient is fixed.
    assert ex.score == 0
    assert rows["log_softmax_value"].status == "failed"
    assert rows["safe_norm_value"].status == "skipped"
    assert rows["log_softmax_large"].status == "failed"
    assert rows["safe_norm_grad"].status == "failed"
    assert rows["find_nan_source_poisoned"].status == "error"
    assert "NotImplementedError" in rows["find_nan_source_poisoned"].message.en
    assert rows["training_stays_finite"].status == "failed"
    assert "loss became nan" in rows["training_stays_finite"].message.en


def test_training_check_points_at_the_norm_when_only_gradients_break(
    sandbox, exercises, fast_config, tmp_path
):
    full = exercises[ID]
    exercise = dataclasses.replace(
        full, checks=tuple(c for c in full.checks if c.id == "training_stays_finite")
    )
    ex = _grade(
        sandbox, exercise, SOLUTIONS / "mutants" / ID / "naive_sqrt.py", fast_config, tmp_path
    )
    (row,) = ex.checks
    assert row.status == "failed"
    assert "W1" in row.message.en and "safe_norm" in row.message.en


@pytest.mark.parametrize(
    "stem, told",
    [
        ("global_max", True),
        ("naive_exp_sum_log", True),
        ("max_then_log_ratio", False),
        ("log_of_softmax", False),
    ],
)
def test_the_overflow_hint_goes_only_to_code_that_can_still_overflow(
    sandbox, exercises, fast_config, tmp_path, stem, told
):
    """log_softmax_large's hint (exp(1000) = inf: shift by each row's maximum) is for an exp
    that overflows; code that already shifts row by row fails there for another reason (the
    log of an underflowed ratio, named as its own mistake) and is not told to do what it does."""
    full = exercises[ID]
    check = [c for c in full.checks if c.id == "log_softmax_large"]
    exercise = dataclasses.replace(full, checks=tuple(check))
    (row,) = _grade(
        sandbox, exercise, SOLUTIONS / "mutants" / ID / f"{stem}.py", fast_config, tmp_path
    ).checks
    assert row.status == "failed", row.message
    held = row.held_hint or row.hint
    assert (held is not None and "exp(1000)" in held.en) == told, (stem, held)

"""The four Latihan's first reports, on the untouched starters at the course's default feedback
level (issue 43): each failed check says what is wrong and where to look (a function of the
exercise), and no message or shown hint says what to write: no expression of the answer key
(grader.authoring.answerfree), none of the recipe's words, and every check's hint kept back for
`python -m grader hint`."""

from __future__ import annotations

import pytest
from conftest import SOLUTIONS

from grader.authoring import answerfree
from grader.grading.grade import grade
from grader.loader.config import Config

LATIHAN = ("manual_gradient", "custom_sigmoid", "nan_debugging", "gradient_penalty")
FEW = Config(examples=5, time_per_call=2.0, time_per_exercise=60.0)

RECIPES = {
    # the fix of each Latihan in words: the stable form, the derivative, the steps
    "manual_gradient": ("tanh²", "1 - tanh", "σ(x)(1", "y² +", "dout", "numel", "(h > 0)"),
    "custom_sigmoid": ("1 - y", "1 - σ", "exp(-x)", "exp(-|x|)", "y·(1", "y * (1"),
    "nan_debugging": (
        "logsumexp",
        "maksimum per baris",
        "row's maximum",
        "torch.where",
        "where(",
        "sqrt di 0",
        "sqrt has",
        "inf · 0",
        "keepdim",
        "x - m",
        "detect_anomaly()",
    ),
    "gradient_penalty": ("create_graph", "- 1)²", "- 1) ** 2", "ones_like", "autograd.grad"),
}


@pytest.fixture(scope="module")
def first_reports(starters, sandbox, exercises):
    result = grade(
        submission_dir=starters,
        exercises=[exercises[e] for e in LATIHAN],
        config=FEW,
        sandbox=sandbox,
    )
    return {e.id: e for e in result.exercises}


def places(exercise) -> set[str]:
    """Where a student looks: the exercise's functions (a check's function, or those a
    scenario's training names)."""
    out = {c.function for c in exercise.checks if c.function}
    for c in exercise.checks:
        named = c.options.get("functions") or ()
        out |= set(named.values() if hasattr(named, "values") else named)
    return out


@pytest.mark.parametrize("exercise_id", LATIHAN)
def test_the_first_report_says_where_to_look_not_what_to_write(
    first_reports, exercises, exercise_id
):
    exercise = exercises[exercise_id]
    result = first_reports[exercise_id]
    assert result.status != "passed"
    failed = [c for c in result.checks if c.status in ("failed", "error", "timeout")]
    assert failed, "an untouched starter fails its checks"
    where = places(exercise)
    for c in failed:
        said = (c.message or result.message).en
        assert any(name in said for name in where), f"{c.id}: {said!r} names no function"
    # the recipe is kept back, never shown at once, and held for whoever asks
    assert all(c.hint is None for c in result.checks)
    texts = answerfree.shown_texts(result)
    keys = answerfree.answer_key(exercise, SOLUTIONS)
    assert answerfree.leaks(result, keys) == []
    told = [
        (where, word) for where, text in texts for word in RECIPES[exercise_id] if word in text
    ]
    assert told == []


def test_the_recipe_level_shows_the_hints_at_once(starters, sandbox, exercises):
    """The teacher's other choice, so that the test above can fail: at `recipe` the same
    starter's report shows its checks' hints (and their formulas)."""
    from dataclasses import replace

    from grader.specs.model import Feedback

    result = grade(
        submission_dir=starters,
        exercises=[exercises["nan_debugging"]],
        config=replace(FEW, feedback=Feedback(level="recipe")),
        sandbox=sandbox,
    ).exercises[0]
    assert any(c.hint is not None for c in result.checks)
    assert all(c.held_hint is None for c in result.checks)

"""Feedback levels: below `recipe` a failed check's hint is kept back (held_hint), shown again
on request or once the student has failed often enough; results.json says a hint is held."""

from __future__ import annotations

from grader.outcomes import levels
from grader.outcomes.results import CheckResult, ExerciseResult
from grader.report import jsonout
from grader.specs.model import Feedback, Text

RECIPE = Text(id="dg/dx = y² + ...", en="dg/dx = y² + ...")
OTHER = Text(id="lain", en="other")


def row(check_id="a", status="failed", hint=RECIPE):
    return CheckResult(
        id=check_id,
        title=Text("t", "t"),
        kind="value",
        status=status,
        points=0.0,
        max_points=1.0,
        message=Text("grad_g(...) → [0]: salah", "grad_g(...) → [0]: wrong"),
        hint=hint,
    )


def result(*rows):
    return ExerciseResult(id="e", title=Text("t", "t"), status="failed", checks=list(rows))


def test_the_default_level_keeps_the_recipe_back_and_keeps_the_message():
    assert Feedback().level == "mistake"
    out = levels.hold(result(row(), row("b", "passed"), row("c", hint=None)), Feedback())
    a, b, c = out.checks
    assert a.hint is None and a.held_hint == RECIPE and a.message is not None
    assert b.hint == RECIPE and b.held_hint is None  # a passed check shows nothing anyway
    assert c.hint is None and c.held_hint is None
    doc = jsonout.check_dict(a, "en")
    assert doc["hint"] is None and doc["hint_held"] is True  # a field added, none removed
    assert "dg/dx" not in str(doc)


def test_the_recipe_level_shows_the_hint_at_once():
    out = levels.hold(result(row()), Feedback(level="recipe"))
    assert out.checks[0].hint == RECIPE and out.checks[0].held_hint is None


def test_released_hints_show_all_or_only_those_asked_for():
    held = levels.hold(result(row(), row("b", hint=OTHER)), Feedback(level="values"))
    assert levels.held(held) == [RECIPE, OTHER]
    every = levels.release(held)
    assert [c.hint for c in every.checks] == [RECIPE, OTHER]
    assert all(c.held_hint is None for c in every.checks)
    asked = levels.release(held, only=[OTHER])
    assert [c.hint for c in asked.checks] == [None, OTHER]
    assert held.checks[0].held_hint == RECIPE  # the kept result is not changed

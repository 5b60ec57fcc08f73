"""What a failed check shows at its exercise's feedback level (grader.specs.model.Feedback).

A check's hint holds the formula or the recipe that fixes the mistake; its message says what is
wrong and where. Below the `recipe` level the hint is kept back (CheckResult.held_hint): the
report says that one exists, `grader hint ID` shows it on request, and a student's own runs show
it once they have failed the exercise `hints_after` times (grader.cli.hints). At `values` no
mistake is named either (grader.grading.confirm names none).
"""

from __future__ import annotations

import dataclasses

from grader.outcomes.results import CheckResult, ExerciseResult
from grader.specs.model import Feedback


def hold(result: ExerciseResult, feedback: Feedback) -> ExerciseResult:
    """The result as the level shows it: below `recipe`, each check's hint kept back."""
    if feedback.level == "recipe":
        return result
    result.checks = [_held(c) for c in result.checks]
    return result


def _held(c: CheckResult) -> CheckResult:
    if c.hint is None or c.status == "passed":
        return c
    return dataclasses.replace(c, hint=None, held_hint=c.hint)


def release(result: ExerciseResult, only: list | None = None) -> ExerciseResult:
    """A copy of the result with its kept-back hints shown (only: those among these, the ones
    the student asked for), as grader.cli.hints.Progress.opened decides."""

    def shown(c: CheckResult) -> bool:
        return c.held_hint is not None and (only is None or c.held_hint in only)

    if not any(shown(c) for c in result.checks):
        return result
    checks = [
        dataclasses.replace(c, hint=c.held_hint, held_hint=None) if shown(c) else c
        for c in result.checks
    ]
    return dataclasses.replace(result, checks=checks)


def held(result: ExerciseResult) -> list:
    """The result's kept-back hints, each once, in the order of its checks."""
    out = []
    for c in result.checks:
        if c.held_hint is not None and c.held_hint not in out:
            out.append(c.held_hint)
    return out

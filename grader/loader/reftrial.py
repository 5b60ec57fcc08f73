"""A spec's references tried once when it loads, on an example drawn as grading draws them.

A reference with a typo (`torch.sinn`, an argument it does not have, a gradient of something
that does not depend on `wrt`) would otherwise load, and then every student would get "grader
error" and 0 points for that check. Tried here, it is a spec error that names the file and the
line, before anyone is graded.
"""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, Phase, given, settings

from grader.common.errors import SpecError
from grader.common.textform import counterexample
from grader.specs import refs, strategies
from grader.specs.model import Check, Exercise

_ONE = settings(
    max_examples=1,
    database=None,
    deadline=None,
    derandomize=True,
    phases=(Phase.generate,),
    suppress_health_check=list(HealthCheck),
)


def draw_one(exercise: Exercise, check: Check) -> dict:
    """The first example hypothesis draws for this check (the same every time)."""
    drawn: list[dict] = []

    @_ONE
    @given(strategies.inputs(exercise, check))
    def take(inputs):
        if not drawn:
            drawn.append(inputs)

    take()
    return drawn[0]


def try_references_once(exercise: Exercise, display: str, spec_bytes: bytes) -> None:
    """try_references, skipped when these very spec bytes passed it with this code before
    (speccache: the trial's outcome depends on nothing else), or when the exercise's committed
    examples were written for them (grader.loader.committed.vouched)."""
    from grader.loader import committed, speccache

    if speccache.tried(spec_bytes):
        return
    if not committed.vouched(exercise):  # (`draw` graded the key on all of its examples)
        try_references(exercise, display)
    speccache.remember(spec_bytes)


def try_references(exercise: Exercise, display: str) -> None:
    """Evaluate the expectation of every check once per dtype it draws; raise SpecError at
    the reference's `expr` line when that fails."""
    for check in exercise.checks:
        if check.expect is None:
            continue
        for dtype in check.dtypes:
            one = dataclasses.replace(check, dtypes=(dtype,))
            inputs = draw_one(exercise, one)
            try:
                refs.expected(check.expect, exercise.references, inputs)
            except Exception as exc:
                raise _error(exercise, check, inputs, exc, display) from None


def _error(
    exercise: Exercise, check: Check, inputs: dict, exc: Exception, display: str
) -> SpecError:
    ref = exercise.references[check.expect.of]
    cause = exc.__cause__ if isinstance(exc, refs.SpecBug) and exc.__cause__ else exc
    what = "its gradient" if check.expect.grad else "it"
    first = (str(cause).strip().splitlines() or [""])[0][:300]
    return SpecError(
        display,
        ref.line,
        f"references.{ref.name}.expr",
        f"evaluating {what} failed with {type(cause).__name__}: {first} (for check "
        f"{check.id!r}, line {check.node.line}, on the drawn example "
        f"{counterexample(check, inputs)}); fix the expression {ref.expr!r}",
    )

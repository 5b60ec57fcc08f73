"""grading.judge: a shared verdict (the code raised, a forbidden call) keeps the grader's cause
whatever a kind's frame() adds to it, so the checks it blocks are said once, an unwritten
function reads as not started and the verdict can be kept."""

from __future__ import annotations

from conftest import find_check

from grader.checks.base import Verdict
from grader.grading.judge import judged
from grader.outcomes.progress import UNWRITTEN
from grader.specs.model import Text

RAISED = {
    "ok": False,
    "phase": "call",
    "error": {"type": "NotImplementedError", "message": "belum / not yet", "traceback": []},
}


class Reframing:
    """A kind whose frame() builds a new verdict and leaves the cause out."""

    def frame(self, ctx, verdict):
        return Verdict(verdict.status, Text("framed", "framed"), verdict.traceback)


def test_a_frame_that_leaves_the_cause_out_keeps_it(exercises):
    ex = exercises["manual_gradient"]
    check = find_check(ex, "df_value")
    verdict = judged(ex, check, Reframing(), {}, RAISED, {})
    assert verdict.message.en == "framed"
    assert verdict.cause == f"{UNWRITTEN}df"


class _Session:
    """A worker stand-in: the reply to any input, or one that depends on its values."""

    def __init__(self, reply):
        self.reply, self.calls = reply, []

    def call(self, check, kind, inputs):
        self.calls.append(inputs)
        reply = self.reply(inputs) if callable(self.reply) else self.reply
        return reply, {}


def _shrunk():
    import torch

    x = torch.full((2, 3), 4.868e-67, dtype=torch.float64).t()  # non-contiguous, requires grad
    return {"x": x.requires_grad_(True)}


def test_a_failure_any_input_shows_is_shown_on_ones_of_the_same_shape(exercises):
    from grader.checks import KINDS
    from grader.grading.judge import simplest

    ex = exercises["manual_gradient"]
    check = find_check(ex, "df_value")
    kind = KINDS[check.kind]
    shrunk = _shrunk()
    verdict = judged(ex, check, kind, shrunk, RAISED, {})
    session = _Session(RAISED)
    shown = simplest(session, ex, check, kind, verdict, shrunk)
    x = shown["x"]
    assert session.calls and x.shape == (3, 2) and bool((x == 1).all())
    assert x.dtype == shrunk["x"].dtype and x.stride() == shrunk["x"].stride()
    assert x.requires_grad and bool((shrunk["x"] != 1).all())  # the drawn input is untouched


def test_a_failure_that_depends_on_the_values_keeps_the_failing_input(exercises):
    from grader.checks import KINDS
    from grader.grading.judge import simplest

    ex = exercises["manual_gradient"]
    check = find_check(ex, "df_value")
    kind = KINDS[check.kind]
    shrunk = _shrunk()
    verdict = judged(ex, check, kind, shrunk, RAISED, {})
    other = dict(RAISED, error=dict(RAISED["error"], type="ValueError", message="only ones"))
    shown = simplest(
        _Session(lambda i: other if bool((i["x"] == 1).all()) else RAISED),
        ex,
        check,
        kind,
        verdict,
        shrunk,
    )
    assert shown is shrunk


def test_a_leaf_changed_in_place_carries_its_hint_through_the_kinds_frame(exercises):
    from grader.checks import KINDS

    ex = exercises["manual_gradient"]
    check = find_check(ex, "df_value")
    error = {
        "type": "RuntimeError",
        "message": "a leaf Variable that requires grad is being used in an in-place operation.",
        "traceback": [],
    }
    reply = {"ok": False, "phase": "call", "error": error}
    verdict = judged(ex, check, KINDS[check.kind], _shrunk(), reply, {})
    assert verdict.hint is not None and "with torch.no_grad()" in verdict.hint.en


def test_a_frame_that_leaves_the_hint_out_keeps_it(exercises):
    ex = exercises["manual_gradient"]
    check = find_check(ex, "df_value")
    error = {
        "type": "RuntimeError",
        "message": "a leaf Variable that requires grad is being used in an in-place operation.",
        "traceback": [],
    }
    reply = {"ok": False, "phase": "call", "error": error}
    verdict = judged(ex, check, Reframing(), {}, reply, {})
    assert verdict.message.en == "framed" and verdict.hint is not None

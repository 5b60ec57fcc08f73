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

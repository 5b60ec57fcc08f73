"""The inputs_untouched kind: a call leaves the caller's tensors and their flags as they were.

Every check whose probe reports the arguments after the call judges this too, by default
(grader.checks.effects); this kind names the property as a check of its own, with its points.
"""

from __future__ import annotations

from grader.checks import effects
from grader.checks.base import Judging, Kind


class InputsUntouched(Kind):
    name = "inputs_untouched"
    constraint = True

    def judge(self, ctx: Judging, reply, values):
        return effects.untouched_args(ctx, values)


KINDS = [InputsUntouched()]

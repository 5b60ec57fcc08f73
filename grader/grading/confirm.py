"""Named mistakes are confirmed on several examples before a message names them.

Hypothesis shrinks a failure to a minimal example (alpha = 0, one sample, all zeros), and there
several mistakes often give the same value: "one norm over the whole batch" equals the right
answer's per-sample norm when N = 1, say. A kind that names mistakes (Kind.candidates) is asked
again, after shrinking, on the first failing example hypothesis found, on the shrunk one and on
a few fresh draws; a mistake is named only if the answer matched it on every one of those where
the answer fails. Otherwise the message says what differs and no more.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hseed

from grader.checks.base import Judging, Verdict
from grader.grading import examples as drawn_examples
from grader.grading.judge import UNREADABLE, pre_judge
from grader.sandbox.workers import SandboxError, WorkerLost

FRESH = 4
"""Fresh draws beyond the first failing and the shrunk example."""

_DRAWN: dict[str, list[dict]] = {}
"""fresh()'s draws in this process, named as the check's examples are (grader.grading.examples
.key: the spec's bytes, the check, the seed): the same for every student, so drawn once
(hypothesis's drawing was a tenth of a mixed class's batch). At most LIMIT, the oldest go."""
LIMIT = 2048


def confirmed(
    *,
    session,
    exercise,
    check,
    kind,
    verdict: Verdict,
    shrunk: dict,
    first: dict | None,
    seed: int,
    name: bool = True,
) -> Verdict:
    """The shrunk example's verdict, judged again with only the confirmed mistakes named
    (name=False, the `values` feedback level: none named)."""
    if type(kind).candidates is type(kind).__mro__[-2].candidates:  # base Kind: names nothing
        return verdict
    examples = [shrunk] + ([first] if first is not None and first is not shrunk else [])
    examples += fresh(exercise, check, kind, seed)
    names = None
    final = None
    try:
        for n, inputs in enumerate(examples):
            reply, values = session.call(check, kind, inputs)
            if pre_judge(check, reply) is not None:
                continue
            ctx = Judging(exercise, check, inputs)
            if n == 0:
                final = (reply, values)
            elif kind.judge(ctx, reply, values) is None:
                continue  # the answer is right here: this example tells nothing
            found = kind.candidates(ctx, reply, values)
            if found is not None:
                names = set(found) if names is None else names & set(found)
    except (WorkerLost, SandboxError, *UNREADABLE):  # (a reply tampered code forged)
        return verdict
    if final is not None and not name:
        names = set()
    if names is None or final is None:
        return verdict
    ctx = Judging(exercise, check, shrunk, confirmed=frozenset(names))
    try:
        return kind.judge(ctx, *final) or verdict
    except UNREADABLE:
        return verdict


def fresh(exercise, check, kind, seed: int) -> list[dict]:
    """A few examples drawn from the check's strategy, the same ones for every student: drawn
    once in a process, each call given its own copies (a kind may change what it is given)."""
    key = drawn_examples.key(exercise, check, -FRESH, seed)  # no count of examples is < 0
    kept = _DRAWN.get(key)
    if kept is None:
        if len(_DRAWN) >= LIMIT:
            del _DRAWN[next(iter(_DRAWN))]
        kept = _DRAWN[key] = _draw(exercise, check, kind, seed)
    return [drawn_examples.copied(inputs) for inputs in kept]


def _draw(exercise, check, kind, seed: int) -> list[dict]:
    drawn: list[dict] = []

    @settings(
        max_examples=FRESH + 2,
        database=None,
        deadline=None,
        phases=(Phase.generate,),
        suppress_health_check=list(HealthCheck),
    )
    @given(kind.strategy(exercise, check))
    def collect(inputs):
        drawn.append(inputs)

    hseed(seed + 1)(collect)()
    return drawn[-FRESH:]  # the first draws are hypothesis' simplest (often degenerate)


def recorded(*, exercise, check, kind, verdict: Verdict, first: tuple, others: list) -> Verdict:
    """confirmed() for a students' release, on recorded examples: `first` is the reported
    failing example and `others` the next failing ones, each (inputs, memo, reply, values)
    already judged; a mistake is named only if the answer matched it on every one of them."""
    if type(kind).candidates is type(kind).__mro__[-2].candidates:
        return verdict
    if pre_judge(check, first[2]) is not None:  # the reported example raised (or worse): no
        return verdict  # value to name a mistake by (confirmed() leaves such a verdict too)
    names = None
    try:
        for inputs, memo, reply, values in [first] + list(others):
            if pre_judge(check, reply) is not None:
                continue
            found = kind.candidates(
                Judging(exercise, check, inputs, memo=memo, recorded=True), reply, values
            )
            if found is not None:
                names = set(found) if names is None else names & set(found)
        if names is None:
            return verdict
        inputs, memo, reply, values = first
        ctx = Judging(
            exercise, check, inputs, confirmed=frozenset(names), memo=memo, recorded=True
        )
        return kind.judge(ctx, reply, values) or verdict
    except UNREADABLE:  # a reply tampered code forged: no mistake named
        return verdict

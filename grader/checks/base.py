"""What a check kind is: how it asks the worker, and how it judges the answer."""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.common import textform
from grader.specs.model import Check, Exercise, Text


@dataclass(frozen=True)
class Mistake:
    """A mistake the grader named in a failing answer: what a class report counts and a teacher
    reads, beside the message that tells the student."""

    id: str
    """A short key, the same for every answer with this mistake ("grad_not_reset")."""
    title: Text
    """The mistake in a few words, in both languages ("the old gradient was not reset")."""


@dataclass
class Verdict:
    """Why one example failed: the status, a message, and the student's own traceback lines."""

    status: str
    """failed (a wrong answer) or error (the code could not run)."""
    message: Text
    traceback: list[str] = field(default_factory=list)
    hint: Text | None = None
    """A hint for this failure, shown instead of the check's (whose hint is about the
    check's usual mistake, not, say, an exception the code raised)."""
    cause: str | None = None
    """A key shared by every check this same failure blocks ("raised:TYPE:FUNCTION",
    "forbidden:API:FUNCTION"), so a report can say it once."""
    mistake: Mistake | None = None
    """The mistake this failure was named as, where the grader named one."""


class NotRecorded(Exception):
    """A release's recorded data lacks a reference value a kind asked for: the release was
    written by another version of the grader (Kind.prepare records every value judge uses)."""


@dataclass
class Judging:
    """What a kind needs to judge one example."""

    exercise: Exercise
    check: Check
    inputs: dict
    """The grader's own copies of the inputs, by argument name."""
    confirmed: frozenset | None = None
    """The named mistakes (see Kind.candidates) the answer matched on every failing example
    tried; None before that is known. A kind names only these."""
    memo: dict | None = None
    """What kinds remembered about this example (grader.grading.examples), when it is a replayed one:
    the same for every submission, so a reference is computed once per example, not once per
    submission."""
    recorded: bool = False
    """The memo is all there is (a students' release, grader.grading.recorded): a reference value not
    in it cannot be computed here."""

    def remember(self, name: str, compute):
        """compute(), or what it gave for this example before. The value is shared by every
        submission graded on the example: it must not be changed by whoever uses it."""
        if self.memo is None:
            return compute()
        if name not in self.memo:
            if self.recorded:
                raise NotRecorded(name)
            self.memo[name] = compute()
        return self.memo[name]

    @property
    def tolerances(self) -> dict:
        from grader.checks.compare import DEFAULT_TOLERANCES

        tol = dict(DEFAULT_TOLERANCES)
        tol.update(self.exercise.tolerances)
        opts = self.check.options
        if "rtol" in opts or "atol" in opts:
            for dtype in self.check.dtypes:
                rtol, atol = tol[dtype]
                tol[dtype] = (float(opts.get("rtol", rtol)), float(opts.get("atol", atol)))
        return tol


class Kind:
    """A kind of check. Hypothesis-driven kinds implement request and judge; static ones run."""

    name = ""
    OPTIONS: dict = {}
    static = False
    needs_function = True
    constraint = False
    """A property a trivial answer also has (right shape, finite, no side effects, no forbidden
    API): it earns points only once the functions it covers pass a non-constraint check."""
    watches_args = True
    """Judge, by default, that a call left the caller's tensor arguments as they were, when
    the probe reports them (args_after): see grader.checks.effects. A kind whose probe changes
    the arguments itself, or that judges them with its own check, sets False."""
    starting_states = False
    """Its probe (the call probe) hands the drawn tensor arguments to the function as the caller
    holds them, so they are also drawn in a starting state: already requiring grad, with an old
    .grad (grader.specs.strategies.STATE), unless an argument says `untracked: true`. A kind
    whose setup builds the caller's objects itself (a scenario) keeps False."""

    def validate(self, check: Check) -> None:
        if self.needs_function and not check.function:
            raise check.node.error("function", f"checks of kind {self.name} need `function:`")
        for key, kind in self.OPTIONS.items():
            if key in check.options:
                value = check.options[key]
                ok = (
                    isinstance(value, kind)
                    if kind is not float
                    else isinstance(value, (int, float))
                )
                if not ok or (isinstance(value, bool) and kind is not bool):
                    raise check.node.error(
                        key, f"expected {getattr(kind, '__name__', kind)}, got {value!r}"
                    )

    def strategy(self, exercise: Exercise, check: Check):
        """The hypothesis strategy for one example: a dict of argument name to value."""
        from grader.specs import strategies

        return strategies.inputs(exercise, check, states=self.starting_states)

    def request(self, check: Check, inputs: dict, enc) -> dict:
        """Fields of the probe request beyond {op: call, fn, args, forbid}; may replace any of
        them (op names another probe). Tensors go through enc (a wire.Encoder)."""
        grad_args = [i for i, a in enumerate(check.args) if getattr(a, "requires_grad", False)]
        return {"grad_args": grad_args} if grad_args else {}

    def prepare(self, ctx: Judging) -> None:
        """Compute, through ctx.remember, every reference value judge, candidates and frame may
        ask for at this example, whatever the answer: what a students' release records in place
        of the reference code (grader.grading.recorded). Kinds that compare with no reference (the
        student's own Jacobian, side effects, a static scan) record nothing."""

    def counterexample(self, check: Check, inputs: dict | None) -> str | None:
        """The failing example as a report shows it under the message: the drawn inputs, and
        whatever else a student needs to build the failing case again (a scenario's setup)."""
        return textform.counterexample(check, inputs)

    def frame(self, ctx: Judging, verdict: Verdict) -> Verdict:
        """A shared verdict (the code raised, a forbidden call) with what this kind adds to
        make the example reproducible, such as the drawn critic it ran with."""
        return verdict

    def candidates(self, ctx: Judging, reply: dict, values: dict) -> set[str] | None:
        """The named mistakes this failing answer matches at this example, for kinds that
        name mistakes (None: this kind names none). The grader keeps only those that match on
        several examples (grader.grading.confirm) before a message names them."""
        return None

    def judge(self, ctx: Judging, reply: dict, values: dict) -> Verdict | None:
        """None when this example passes. values holds the decoded outs, grads, args_after,
        data (any probe's extra values) and graph facts. A reference computed from the inputs
        alone goes through ctx.remember, so that a replayed example computes it once."""
        raise NotImplementedError

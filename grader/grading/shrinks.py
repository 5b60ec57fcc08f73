"""Hypothesis's runs of a failing check, kept as a tree: a later submission that passes and
fails exactly where an earlier one did is graded without hypothesis, on the same calls.

With its fixed seed, hypothesis's run of a property depends on nothing but the property's
outcomes: which calls pass and which fail (the grader's property fails in one way, `Failed`,
raised from one place), as the replay of the drawn examples already relies on
(grader.grading.examples). So the inputs of a run's k-th call depend only on the outcomes of the
calls before it, and the runs of every submission graded so far form a tree: a step holds the
inputs of one call (and the references the kinds computed for them), and for each outcome seen
there, the step that came next or the end of the run.

A submission whose replay meets a failure walks the tree (grader.grading.checkrun.run_check): it
makes each step's call, in the same worker and order as hypothesis would, and follows the branch
of its own outcome. Where the run ends, its last call was hypothesis's final replay of the shrunk
example: verdict and counterexample are the ones hypothesis gives. Where its outcome has no
branch yet, or a call ends another way (a lost worker, a grader error), hypothesis runs as
before, and the property answers the calls already made from what they gave (the worker is not
asked again), so the result is hypothesis's own; that run then joins the tree. Code that keeps
state between calls sees the same calls in the same order either way.

In `batch`, a run may be cut at the shrink budget (config.yaml shrink_budget): it ends at a
Cut marker naming the budget instead of END, and only a grading with that same budget reports
the cut run's result where a walk reaches it (one with a larger budget, or none, lets hypothesis
go on; one with a smaller budget is cut by its own count before it gets there).

The drawing, the engine and the shrinker are hypothesis's work of about half a failing check;
the calls themselves remain. Kept in memory only, with the check's examples, up to MAX_STEPS a
check and MAX_ALL in a process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.grading import examples
from grader.grading.examples import Drawn, same

PASSED, FAILED, OTHER = "passed", "failed", "other"
END = "end"
"""Where a branch leads when the run ended after that outcome."""


@dataclass(frozen=True)
class Cut:
    """Where a branch leads when the run was cut after that outcome, at a shrink budget."""

    budget: int


MAX_STEPS = 3000
"""Steps kept per check: a new run that would pass this is not kept (it is graded as before)."""
MAX_ALL = 40000
"""Steps kept in a process, all checks together (a step is about 3.5 kB of inputs and
references in the course's largest exercise: at most about 150 MB)."""


@dataclass(eq=False)
class Step:
    inputs: dict
    memo: dict
    after: dict = field(default_factory=dict)
    """Outcome (PASSED, FAILED) -> the next Step, or END."""


@dataclass
class Made:
    """One call of the property in this grading: its inputs as drawn, the references the kinds
    kept for them, and what it gave (OTHER: raised something other than a failure)."""

    inputs: dict
    memo: dict
    outcome: str = OTHER
    raised: BaseException | None = None


def add(drawn: Drawn, made: list[Made], cut: int | None = None) -> bool:
    """Add a finished run (every call passed or failed, the last one failed) to the check's
    tree; cut: the run was cut at this shrink budget after its last call (which may have
    passed). Nothing is changed where it disagrees with the tree (a call whose inputs differ
    from the step's: hypothesis did not follow its own outcomes) or would grow it past
    MAX_STEPS."""
    end = END if cut is None else Cut(cut)
    if not made or (cut is None and made[-1].outcome != FAILED):
        return False
    if any(m.outcome not in (PASSED, FAILED) for m in made):
        return False
    step, new = drawn.runs, 0
    if step is None:
        new = len(made)
    else:
        for i, m in enumerate(made):
            if not same(step.inputs, m.inputs):
                return False
            nxt = step.after.get(m.outcome)
            last = i == len(made) - 1
            if nxt is None:
                new = len(made) - 1 - i
                break
            if not isinstance(nxt, Step) and (not last or nxt != end):
                return False  # it ended there, in another way
            if last:
                return nxt == end  # already there (or it went on there)
            step = nxt
    if drawn.steps + new > MAX_STEPS or kept() + new > MAX_ALL:
        return False
    # Now grow it: the path agrees as far as it goes.
    if drawn.runs is None:
        drawn.runs = Step(made[0].inputs, made[0].memo)
    step = drawn.runs
    for i, m in enumerate(made):
        if i == len(made) - 1:
            step.after[m.outcome] = end
            break
        nxt = step.after.get(m.outcome)
        if nxt is None:
            nxt = step.after[m.outcome] = Step(made[i + 1].inputs, made[i + 1].memo)
        step = nxt
    drawn.steps += new
    return True


def kept() -> int:
    """Steps kept in this process."""
    return sum(d.steps for d in examples.held())


def walk(step: Step | None, outcome, budget: int | None = None) -> str | Cut | None:
    """Follow the tree from `step` as far as it knows the outcomes outcome(step) gives: END
    where it reaches a run's end (the last call failed: hypothesis's final replay), the Cut
    where it reaches a run cut at this same shrink budget, else None."""
    while step is not None:
        given = outcome(step)
        if given == OTHER:
            return None
        step = step.after.get(given)
        if step is END:
            return END
        if isinstance(step, Cut):
            return step if step.budget == budget else None
    return None

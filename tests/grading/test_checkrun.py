"""One check's run: batch's shrink budget changes no verdict, only how far a counterexample is
shrunk, and says so (CheckResult.shrink_cut)."""

from __future__ import annotations

import dataclasses
import shutil

from conftest import SOLUTIONS

from grader.grading import examples
from grader.grading.grade import grade

MUTANTS = [
    ("manual_gradient", "bias_not_summed"),
    ("custom_sigmoid", "missing_one_minus_y"),
    ("grad_clipping", "always_scales"),  # failures hypothesis finds among drawn examples,
    ("grad_clipping", "grad_none_crash"),  # not on an edge (explicit examples: no shrink)
]


def _verdicts(result) -> dict:
    return {
        (e.id, c.id): (c.status, c.points, c.max_points)
        for e in result.exercises
        for c in e.checks
    }


def test_a_shrink_budget_changes_no_verdict_and_says_where_it_cut(
    tmp_path, store, sandbox, exercises, fast_config
):
    """Each mutant graded with a full shrink, with a budget of 3 calls (so that it cuts), and
    once more with the budget (on the tree of runs the first graded): the same statuses and
    points every time; only the bounded gradings mark a counterexample shrink_cut, and the
    tree's cut runs give what hypothesis's cut runs gave."""
    subs = []
    for ex, mutant in MUTANTS:
        sub = tmp_path / f"{ex}-{mutant}"
        sub.mkdir()
        shutil.copy(SOLUTIONS / "mutants" / ex / f"{mutant}.py", sub / f"{ex}.py")
        subs.append((sub, [exercises[ex]]))
    bounded = dataclasses.replace(fast_config, bounded_shrink=True, shrink_budget=3)

    def graded(config) -> list:
        return [
            grade(submission_dir=sub, exercises=chosen, config=config, sandbox=sandbox)
            for sub, chosen in subs
        ]

    full = graded(fast_config)
    examples.forget()
    cut = graded(bounded)
    walked = graded(bounded)  # the same process: its trees now hold the cut runs
    for f, c, w in zip(full, cut, walked):
        assert _verdicts(f) == _verdicts(c) == _verdicts(w)
        assert any(ch.status != "passed" for e in f.exercises for ch in e.checks)
        for e, ec in zip(c.exercises, w.exercises):
            for a, b in zip(e.checks, ec.checks):
                assert (a.counterexample, a.shrink_cut) == (b.counterexample, b.shrink_cut)
    rows = lambda results: [ch for r in results for e in r.exercises for ch in e.checks]  # noqa: E731
    assert not any(ch.shrink_cut for ch in rows(full))
    assert any(ch.shrink_cut for ch in rows(cut))
    # a check marked cut failed; a passing check is never marked
    assert all(ch.status != "passed" for ch in rows(cut) if ch.shrink_cut)

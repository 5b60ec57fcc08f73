"""Hypothesis's runs of failing checks, kept as a tree and walked by later submissions, give the
verdicts hypothesis gives alone, without running it again."""

from __future__ import annotations

import torch
from conftest import SOLUTIONS, verdicts_of

from grader.grading import examples, shrinks
from grader.grading.grade import grade

TIRED = """

import functools as _functools
import inspect as _inspect

_calls = [0]


def _tires(fn):
    @_functools.wraps(fn)
    def tired(*args, **kwargs):
        _calls[0] += 1
        if _calls[0] > {after}:
            raise RuntimeError("tired")
        return fn(*args, **kwargs)

    return tired


for _name, _value in list(globals().items()):
    if _inspect.isfunction(_value) and _value.__module__ == __name__ and _name[0] != "_":
        globals()[_name] = _tires(_value)
"""


def test_code_that_keeps_state_between_calls_is_graded_the_same_with_a_tree_or_without(
    tmp_path, store, hypothesis_runs, sandbox, exercises, fast_config
):
    """An answer that fails from its n-th call on (a count kept in a global) depends on which
    calls its worker got and in what order: walking a tree gives it the calls hypothesis would
    give it, in that order, in one worker, so its verdicts do not depend on what was graded
    before it in the process. Each is graded with an empty store, then after the others."""
    key = (SOLUTIONS / "manual_gradient.py").read_text()
    subs = {}
    for after in (3, 12, 40):
        sub = tmp_path / f"after{after}"
        sub.mkdir()
        (sub / "manual_gradient.py").write_text(key + TIRED.replace("{after}", str(after)))
        subs[after] = sub
    chosen = [exercises["manual_gradient"]]

    def graded(sub) -> dict:
        return verdicts_of(
            grade(submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox)
        )

    alone = {}
    for after, sub in subs.items():
        examples.forget()
        alone[after] = graded(sub)
    assert all(e["status"] == "failed" for r in alone.values() for e in r["exercises"])
    assert len({str(r) for r in alone.values()}) > 1  # they fail differently
    examples.forget()
    hypothesis_runs[0] = 0
    first = {after: graded(sub) for after, sub in subs.items()}
    ran = hypothesis_runs[0]
    hypothesis_runs[0] = 0
    again = {after: graded(sub) for after, sub in reversed(subs.items())}
    assert alone == first == again
    # Most walked a run to its end; hypothesis still runs where a run ended other than in a
    # failure (here: "not deterministic", hypothesis's final replay passed), never kept.
    assert hypothesis_runs[0] < ran / 2


def _made(values, outcomes) -> list[shrinks.Made]:
    return [
        shrinks.Made({"x": torch.tensor([float(v)])}, {}, outcome)
        for v, outcome in zip(values, outcomes)
    ]


P, F = shrinks.PASSED, shrinks.FAILED


def test_a_run_joins_the_tree_only_where_it_agrees_with_it():
    drawn = examples.Drawn("k", [{}])
    assert shrinks.add(drawn, _made([1, 2, 3], [P, F, F]))
    assert drawn.steps == 3
    assert shrinks.add(drawn, _made([1, 2, 3], [P, F, F]))  # already there: nothing new
    assert drawn.steps == 3
    assert shrinks.add(drawn, _made([1, 2, 5, 6], [P, P, P, F]))  # 2's call passed this time
    assert drawn.steps == 5
    # inputs that differ from the tree's at the same place: hypothesis did not follow its
    # outcomes, and nothing of it is kept
    assert not shrinks.add(drawn, _made([1, 9, 3], [P, F, F]))
    # a run that ends where the tree goes on, or goes on where it ended
    assert not shrinks.add(drawn, _made([1, 2], [P, F]))
    assert not shrinks.add(drawn, _made([1, 2, 3, 4], [P, F, F, F]))
    # not a run hypothesis finished with a failure
    assert not shrinks.add(drawn, _made([1, 2, 7], [P, F, shrinks.OTHER]))
    assert not shrinks.add(drawn, _made([1, 7], [P, P]))
    assert drawn.steps == 5

    seen = []

    def outcome(answers):
        def give(step):
            seen.append(float(step.inputs["x"]))
            return answers[len(seen) - 1]

        return give

    assert shrinks.walk(drawn.runs, outcome([P, P, P, F]))
    assert seen == [1, 2, 5, 6]
    seen.clear()
    assert shrinks.walk(drawn.runs, outcome([P, F, F]))
    assert seen == [1, 2, 3]
    seen.clear()
    assert not shrinks.walk(drawn.runs, outcome([P, F, P]))  # no branch for it: hypothesis runs
    assert seen == [1, 2, 3]
    seen.clear()
    assert not shrinks.walk(drawn.runs, outcome([P, shrinks.OTHER]))
    assert not shrinks.walk(None, outcome([]))


def test_a_tree_stops_growing_at_its_limit(monkeypatch):
    monkeypatch.setattr(shrinks, "MAX_STEPS", 4)
    drawn = examples.Drawn("k", [{}])
    assert shrinks.add(drawn, _made([1, 2, 3], [P, F, F]))
    assert not shrinks.add(drawn, _made([1, 2, 5, 6], [P, P, P, F]))  # 5 steps
    assert shrinks.add(drawn, _made([1, 2, 3], [P, F, F]))
    assert shrinks.add(drawn, _made([1, 2, 3, 8], [P, F, P, F]))
    assert drawn.steps == 4


def test_the_trees_of_a_process_stop_growing_at_their_limit(monkeypatch, store):
    monkeypatch.setattr(shrinks, "MAX_ALL", 5)
    one, two = examples.Drawn("one", [{}]), examples.Drawn("two", [{}])
    monkeypatch.setitem(examples._MEMORY, "one", one)
    monkeypatch.setitem(examples._MEMORY, "two", two)
    assert shrinks.add(one, _made([1, 2, 3], [P, F, F]))
    assert not shrinks.add(two, _made([1, 2, 3], [P, F, F]))  # 6 in the process
    assert shrinks.add(two, _made([1, 2], [F, F]))
    assert shrinks.kept() == 5


def test_a_run_cut_at_a_shrink_budget_is_walked_only_with_that_budget():
    drawn = examples.Drawn("k", [{}])
    assert shrinks.add(drawn, _made([1, 2, 3], [P, F, P]), cut=2)  # cut after a passed call
    assert shrinks.add(drawn, _made([1, 2, 3], [P, F, P]), cut=2)  # already there
    assert not shrinks.add(drawn, _made([1, 2, 3], [P, F, P]), cut=5)  # cut elsewhere there
    assert not shrinks.add(drawn, _made([1, 2, 3, 4], [P, F, P, F]))  # it was cut there
    assert drawn.steps == 3

    def outcome(answers):
        seen = []

        def give(step):
            seen.append(step)
            return answers[len(seen) - 1]

        return give

    assert shrinks.walk(drawn.runs, outcome([P, F, P]), 2) == shrinks.Cut(2)
    assert shrinks.walk(drawn.runs, outcome([P, F, P]), 7) is None  # it shrinks further
    assert shrinks.walk(drawn.runs, outcome([P, F, P])) is None  # a full shrink: hypothesis

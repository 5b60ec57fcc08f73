"""validate's rule audit on graded results (no grading here): a stated rule is shown only by a
mutant that breaks it alone, and only where the starter states it."""

from __future__ import annotations

import dataclasses
import shutil

from conftest import EXERCISES

from grader.authoring.validate import Audit, Trial
from grader.outcomes.results import CheckResult, ExerciseResult
from grader.specs.model import Text


def _trial(exercise, failed: dict, docstring: str) -> Trial:
    """A mutant whose result fails the checks in `failed` (id -> cause) and passes the rest."""
    rows = [
        CheckResult(
            id=c.id,
            title=c.title,
            kind=c.kind,
            status="failed" if c.id in failed else "passed",
            points=0.0 if c.id in failed else c.points,
            max_points=c.points,
            cause=failed.get(c.id),
            hidden=c.hidden,
        )
        for c in exercise.checks
    ]
    result = ExerciseResult(id=exercise.id, title=exercise.title, status="failed", checks=rows)
    return Trial("mutant", f"solutions/mutants/{exercise.id}/m.py", result, docstring)


def test_a_mutant_failing_a_check_of_no_rule_it_names_does_not_show_the_rule(exercises):
    exercise = exercises["retain_graph"]
    alone = _trial(exercise, {"two_loss_one_forward": None}, "Breaks the rule one_forward.")
    crowded = _trial(
        exercise,
        {"two_loss_one_forward": None, "grad_twice": None},
        "Breaks the rule one_forward.",
    )
    audit = Audit(exercise, [crowded])
    assert audit.rule_breakers(alone=False)["one_forward"] == [crowded.file]
    assert audit.rule_breakers()["one_forward"] == []
    assert audit.others(crowded) == ["grad_twice"]
    assert audit.crowded()["one_forward"] == [(crowded.file, ["grad_twice"])]
    assert "one_forward" in audit.unbroken_rules() and not audit.ok
    audit = Audit(exercise, [alone, crowded])
    assert audit.rule_breakers()["one_forward"] == [alone.file]
    assert audit.caught_for(alone, "one_forward") == ["two_loss_one_forward"]
    assert "one_forward" not in audit.crowded() and "one_forward" not in audit.unbroken_rules()


def test_a_principle_a_mutant_names_accounts_for_the_checks_its_cause_blocks(exercises):
    exercise = exercises["retain_graph"]
    said = "Breaks the rule caller_x_unchanged. Breaks the rule caller_objects."
    trial = _trial(exercise, {"grad_twice": None, "two_loss_results": "caller:x"}, said)
    assert Audit(exercise, [trial]).others(trial) == []
    trial = _trial(exercise, {"grad_twice": None, "two_loss_results": "raised:X:f"}, said)
    assert Audit(exercise, [trial]).others(trial) == ["two_loss_results"]


def test_a_rule_the_starter_does_not_state_fails_the_audit(exercises, tmp_path):
    exercise = exercises["retain_graph"]
    folder = tmp_path / exercise.id
    folder.mkdir()
    shutil.copyfile(EXERCISES / exercise.id / exercise.file, folder / exercise.file)
    moved = dataclasses.replace(exercise, path=folder / "exercise.yaml")
    assert Audit(moved).unstated() == []
    rules = dict(moved.rules, told_nowhere=Text(id="Tidak diberitahu.", en="Told nowhere."))
    audit = Audit(dataclasses.replace(moved, rules=rules))
    assert audit.unstated() == ["told_nowhere"] and not audit.ok


def test_the_checks_one_exception_blocks_are_that_one_failure(exercises):
    exercise = exercises["retain_graph"]
    raised = "raised:RuntimeError:two_loss_grads"
    said = "Breaks the rule retain_first."
    trial = _trial(exercise, {"two_loss_results": raised, "two_loss_one_forward": raised}, said)
    assert Audit(exercise, [trial]).others(trial) == []
    other = "raised:RuntimeError:grad_twice"
    trial = _trial(exercise, {"two_loss_results": raised, "two_loss_one_forward": other}, said)
    assert Audit(exercise, [trial]).others(trial) == ["two_loss_one_forward"]


def test_a_forbidden_call_trapped_at_run_time_is_the_rules_one_failure(exercises):
    exercise = exercises["manual_sgd"]
    trapped = "forbidden:torch.optim.SGD:sgd_step"
    said = "Breaks the rule no_optim."
    trial = _trial(exercise, {"no_optim": None, "sgd_update": trapped}, said)
    assert Audit(exercise, [trial]).others(trial) == []
    trial = _trial(exercise, {"sgd_update": trapped}, said)  # the static check passed
    assert Audit(exercise, [trial]).others(trial) == ["sgd_update"]

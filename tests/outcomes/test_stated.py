"""A failed check names the stated rules it observes, in the words the student was given."""

from __future__ import annotations

from grader.outcomes import stated
from grader.outcomes.results import CheckResult
from grader.specs.model import Text


def _row(check_id: str, status: str, message: Text | None = None) -> CheckResult:
    return CheckResult(
        id=check_id,
        title=Text(id=check_id, en=check_id),
        kind="scenario",
        status=status,
        points=0.0 if status != "passed" else 1.0,
        max_points=1.0,
        message=message,
    )


def test_a_failed_check_names_its_rule_in_both_languages(exercises):
    exercise = exercises["retain_graph"]
    rule = exercise.rules["one_forward"]
    said = Text(id="dua kali", en="twice")
    rows = stated.named(
        exercise,
        [
            _row("two_loss_one_forward", "failed", said),
            _row("grad_twice", "passed"),
            _row("two_loss_results", "error", said),
        ],
    )
    assert rows[0].message.en.startswith("twice") and rule.en in rows[0].message.en
    assert rule.id in rows[0].message.id and rule.en not in rows[0].message.id
    assert rows[1].message is None  # a passed check says nothing
    assert rows[2].message == said  # code that could not run broke no rule yet


def test_a_check_observing_several_rules_names_each(exercises):
    exercise = exercises["retain_graph"]
    (row,) = stated.named(exercise, [_row("two_loss_model_state", "failed")])
    for rule_id in ("retain_first", "no_accumulation", "grad_holds_loss_b"):
        assert exercise.rules[rule_id].en in row.message.en

"""Hints one at a time: progress in the state file, hints that open after failed runs, and the
spec fields that mark them."""

from __future__ import annotations

import json

import pytest
from conftest import EXERCISES

from grader.cli.hints import STATE_FILE, Progress
from grader.common.errors import SpecError
from grader.loader import specfile
from grader.outcomes.results import ExerciseResult, SubmissionResult
from grader.specs.model import Text

GOOD = (EXERCISES / "manual_gradient" / "exercise.yaml").read_text()
FIRST_HINT = "hints:\n  - id:"


def load(tmp_path, text):
    folder = tmp_path / "manual_gradient"
    folder.mkdir(exist_ok=True)
    (folder / "exercise.yaml").write_text(text)
    return specfile.load(folder / "exercise.yaml", root=tmp_path)


def with_second_hint_locked(tmp_path, after=2):
    """The shipped spec with its second hint (which helps grad_g_value) opening after `after`
    failed runs."""
    ex = load(tmp_path, GOOD)
    assert ex.hints[1].checks == ("grad_g_value",) and ex.hints[1].after_failures == 0
    marker = f'    id: "{ex.hints[1].id}"'
    text = GOOD.replace(marker, f"    after_failures: {after}\n{marker}", 1)
    return load(tmp_path, text)


def failed_run(ex_id="manual_gradient", status="failed"):
    return SubmissionResult(
        "s", [ExerciseResult(id=ex_id, title=Text("t", "t"), status=status, checks=[])], {}
    )


def test_spec_marks_hints(tmp_path):
    ex = with_second_hint_locked(tmp_path)
    assert ex.hints[0].after_failures == 0 and ex.hints[0].checks == ()
    assert ex.hints[1].after_failures == 2 and ex.hints[1].checks == ("grad_g_value",)


def test_spec_rejects_a_hint_for_an_unknown_check(tmp_path):
    ex = load(tmp_path, GOOD)
    text = GOOD.replace(
        f'  - id: "{ex.hints[0].id}"', f'  - checks: [nope]\n    id: "{ex.hints[0].id}"', 1
    )
    with pytest.raises(SpecError, match=r"hints\[0\]\.checks\[0\]: unknown check id 'nope'"):
        load(tmp_path, text)


def test_hints_come_one_at_a_time_and_persist(tmp_path):
    ex = load(tmp_path, GOOD)
    progress = Progress.of(tmp_path)
    first = progress.next_hint(ex)
    assert (first.number, first.hint) == (1, ex.hints[0])
    progress.save()
    again = Progress.of(tmp_path).next_hint(ex)  # a new process reads the state file
    assert (again.number, again.hint) == (2, ex.hints[1])
    assert json.loads((tmp_path / STATE_FILE).read_text())["shown"] == {"manual_gradient": 1}


def test_after_the_last_hint_it_repeats(tmp_path):
    ex = load(tmp_path, GOOD)
    progress = Progress.of(tmp_path)
    steps = [progress.next_hint(ex) for _ in range(len(ex.hints) + 1)]
    assert [s.number for s in steps] == list(range(1, len(ex.hints) + 1)) + [len(ex.hints)]
    assert steps[-1].repeat and steps[-1].hint == ex.hints[-1]


def test_locked_hint_opens_after_failed_runs(tmp_path):
    ex = with_second_hint_locked(tmp_path, after=2)
    progress = Progress.of(tmp_path)
    assert progress.next_hint(ex).hint == ex.hints[0]
    locked = progress.next_hint(ex)
    assert locked.hint is None and locked.locked_until == 2 and locked.number == 2
    progress.record_run(failed_run())
    progress.record_run(failed_run(status="missing"))  # no file: not a try
    progress.record_run(failed_run(status="passed"))
    assert progress.next_hint(ex).hint is None
    progress.record_run(failed_run(status="error"))
    assert progress.next_hint(ex).hint == ex.hints[1]


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"shown": {"manual_gradient": "x"}}'])
def test_broken_state_file_is_empty_progress(tmp_path, content):
    (tmp_path / STATE_FILE).write_text(content)
    ex = load(tmp_path, GOOD)
    assert Progress.of(tmp_path).next_hint(ex).number == 1


@pytest.mark.parametrize("kind", ["sparse", "fifo", "deep", "link"])
def test_a_hostile_state_file_is_empty_progress(tmp_path, kind):
    """The working copy is the student's: a state file of 8 GiB, a FIFO, deeply nested JSON or
    a link is read no further than the cap, never waited on, never followed."""
    import os

    path = tmp_path / STATE_FILE
    if kind == "sparse":
        with open(path, "wb") as f:
            f.truncate(8 * 2**30)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "deep":
        path.write_text('{"shown": ' + "[" * 100_000 + "]" * 100_000 + "}")
    else:
        (tmp_path / "elsewhere.json").write_text('{"shown": {"manual_gradient": 1}}')
        path.symlink_to(tmp_path / "elsewhere.json")
    ex = load(tmp_path, GOOD)
    assert Progress.of(tmp_path).next_hint(ex).number == 1


RECIPE = Text(id="dg/dx = y² + ...", en="dg/dx = y² + ...")
OTHER = Text(id="periksa urutan", en="check the order")


def held_run(*hints, status="failed"):
    """A run whose feedback level kept these hints back (grader.outcomes.levels)."""
    from grader.outcomes.results import CheckResult

    rows = [
        CheckResult(
            id=f"c{i}",
            title=Text("t", "t"),
            kind="value",
            status="failed",
            points=0.0,
            max_points=1.0,
            message=Text("salah", "wrong"),
            held_hint=h,
        )
        for i, h in enumerate(hints)
    ]
    return SubmissionResult(
        "s",
        [ExerciseResult(id="manual_gradient", title=Text("t", "t"), status=status, checks=rows)],
        {},
    )


def test_kept_back_hints_come_first_one_at_a_time_and_persist(tmp_path):
    ex = load(tmp_path, GOOD)
    progress = Progress.of(tmp_path)
    progress.record_run(held_run(RECIPE, OTHER, RECIPE))
    progress.save()
    progress = Progress.of(tmp_path)  # read back from the state file
    assert progress.next_held(ex.id) == (RECIPE, 1, 2)
    assert progress.next_held(ex.id) == (OTHER, 2, 2)
    assert progress.next_held(ex.id) == (None, 0, 0)
    assert progress.next_hint(ex).hint == ex.hints[0]  # then the exercise's own hints
    # what the student asked for shows in the report from now on, the rest stays back
    progress.record_run(held_run(RECIPE, OTHER))
    shown = progress.opened(held_run(RECIPE, OTHER).exercises[0], after=None)
    assert [c.hint for c in shown.checks] == [RECIPE, OTHER]
    progress.record_run(held_run(OTHER))  # other failures: their hints anew
    assert progress.next_held(ex.id) == (OTHER, 1, 1)


def test_kept_back_hints_open_after_enough_failed_runs(tmp_path):
    progress = Progress.of(tmp_path)
    run = held_run(RECIPE)
    for n in (1, 2):
        progress.record_run(run)
        assert progress.opened(run.exercises[0], after=3).checks[0].hint is None, n
        assert progress.opened(run.exercises[0], after=None).checks[0].hint is None
    progress.record_run(run)
    assert progress.opened(run.exercises[0], after=3).checks[0].hint == RECIPE
    assert progress.opened(run.exercises[0], after=None).checks[0].hint is None


@pytest.mark.parametrize("held", ['"x"', "[[1, 2]]", '[["only one"]]', "{}"])
def test_broken_kept_back_hints_are_none(tmp_path, held):
    (tmp_path / STATE_FILE).write_text('{"held": {"manual_gradient": ' + held + "}}")
    assert Progress.of(tmp_path).next_held("manual_gradient") == (None, 0, 0)

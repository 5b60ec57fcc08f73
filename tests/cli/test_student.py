"""A student's day, scripted: the course view of a fresh working copy, fixing an exercise moves
"next", `check --only`, hints one at a time, and watch regrading on a real file change."""

from __future__ import annotations

import os
import shutil

import pytest
from conftest import SOLUTIONS
from rich.console import Console

from grader.cli.hints import Progress
from grader.cli.main import main
from grader.cli.student import watch_course
from grader.cli.workingcopy import find_root
from grader.loader import specfile
from grader.loader.config import Config
from grader.outcomes.results import ExerciseResult, SubmissionResult

pytestmark = pytest.mark.usefixtures("shared_template")  # see conftest


def run(working_copy, *args):
    return main(
        [
            "--exercises-dir",
            str(working_copy / "exercises"),
            "--config",
            str(working_copy / "config.yaml"),
            *args,
        ]
    )


LATIHAN = ("manual_gradient", "custom_sigmoid", "nan_debugging", "gradient_penalty")


def latihan_only(working_copy):
    """The working copy cut down to the chapter's four Latihan, in their order (the course
    view's numbers and totals below are theirs)."""
    for folder in (working_copy / "exercises").iterdir():
        if folder.is_dir() and folder.name not in LATIHAN:
            shutil.rmtree(folder)
    (working_copy / "exercises" / "ORDER").write_text("\n".join(LATIHAN) + "\n")
    return working_copy


def test_fresh_working_copy_shows_the_course_in_80_columns(working_copy, capsys):
    latihan_only(working_copy)
    assert run(working_copy) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert all(len(line.rstrip()) <= 80 for line in lines), max(lines, key=len)
    assert len(lines) < 60  # not the 390 lines of every check of every exercise
    assert "1. manual_gradient ←" in out and "not started" in out
    assert "Next: manual_gradient" in out and "Write df, grad_g, mlp_grads, autograd_df" in out
    # full feedback only for the exercise to work on: said once per unwritten function
    assert out.count("] df raised NotImplementedError") == 1
    assert "Blocks 3 checks: df_value, df_shape_dtype, df_finite." in out
    assert "Sigmoid.forward" not in out  # the next exercises are one line each


def test_fixing_an_exercise_makes_it_done_and_moves_next(working_copy, capsys):
    latihan_only(working_copy)
    shutil.copyfile(
        SOLUTIONS / "manual_gradient.py",
        working_copy / "exercises" / "manual_gradient" / "manual_gradient.py",
    )
    assert run(working_copy) == 1
    out = capsys.readouterr().out
    assert "1. manual_gradient" in out and "done" in out and "19/19" in out
    assert "2. custom_sigmoid ←" in out and "Next: custom_sigmoid" in out
    assert "Write Sigmoid.forward" not in out or "custom_sigmoid" in out
    for name in ("custom_sigmoid", "nan_debugging", "gradient_penalty"):
        shutil.copyfile(SOLUTIONS / f"{name}.py", working_copy / "exercises" / name / f"{name}.py")
    assert run(working_copy) == 0
    assert "All exercises done! 61/61 points." in capsys.readouterr().out


def test_check_only_reruns_one_check(working_copy, capsys):
    assert run(working_copy, "check", "manual_gradient", "--only", "grad_g_value") == 1
    out = capsys.readouterr().out
    assert "grad_g(x, y) matches autograd" in out and "df(x) matches autograd" not in out
    assert run(working_copy, "check", "manual_gradient", "--only", "nope") == 2
    assert "unknown check(s): nope" in capsys.readouterr().err


def test_hint_steps_through_the_hints(working_copy, capsys):
    exercises = specfile.discover(working_copy / "exercises")
    hints = next(e for e in exercises if e.id == "custom_sigmoid").hints
    assert hints[2].after_failures == 2  # the stable form waits for two failed runs

    def next_hint():
        assert run(working_copy, "hint", "custom_sigmoid") == 0
        return capsys.readouterr().out

    shown = [next_hint(), next_hint()]
    locked = next_hint()
    assert "Hint 3/4 opens after 2 failed runs of this exercise (so far: 0)" in " ".join(
        locked.split()
    )
    progress = Progress.of(working_copy)  # two runs of `python -m grader` that failed it
    for _ in range(2):
        progress.record_run(
            SubmissionResult(
                "s",
                [ExerciseResult(id="custom_sigmoid", title=hints[0], status="failed", checks=[])],
                {},
            )
        )
    progress.save()
    shown += [next_hint(), next_hint(), next_hint()]
    assert "Implement the sigmoid" in shown[0]  # the instructions come with the first hint
    for n, (out, hint) in enumerate(zip(shown, hints), start=1):
        assert f"Hint {n}/{len(hints)} for custom_sigmoid" in out
        flat = " ".join(out.split())
        assert hint.en in flat
        assert all(other.en not in flat for other in hints if other is not hint)
    assert "That was the last hint" in shown[-1]
    assert run(working_copy, "hint", "custom_sigmoid", "--all") == 0
    flat = " ".join(capsys.readouterr().out.split())
    assert all(h.en in flat for h in hints)


def test_grader_works_from_a_subfolder_of_the_working_copy(working_copy, monkeypatch, capsys):
    """As the `grader` command does after `pip install -e .`: the working copy is found from
    where the student is, not from where the grader is installed."""
    inside = working_copy / "exercises" / "nan_debugging"
    assert find_root(inside) == working_copy and find_root(working_copy.parent) is None
    shutil.copyfile(SOLUTIONS / "nan_debugging.py", inside / "nan_debugging.py")
    monkeypatch.chdir(inside)
    assert main(["check", "nan_debugging", "--only", "log_softmax_large"]) == 0
    assert "2/2 points" in capsys.readouterr().out  # the copy's answer, not the repo's starter


def test_watch_regrades_on_a_real_file_change_and_moves_on(working_copy, sandbox):
    directory = working_copy / "exercises"
    exercises = [
        e for e in specfile.discover(directory) if e.id in ("manual_gradient", "custom_sigmoid")
    ]
    target = directory / "manual_gradient" / "manual_gradient.py"
    views = []

    def on_result(view):
        views.append(view)
        if len(views) == 1:  # the student saves a finished answer
            target.write_text((SOLUTIONS / "manual_gradient.py").read_text())
            stat = target.stat()
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))

    console = Console(width=80, record=True, force_terminal=False, color_system=None)
    watch_course(
        directory=directory,
        exercises=exercises,
        lang="en",
        console=console,
        config=Config(examples=10, time_per_call=2.0),
        sandbox=sandbox,
        state_root=working_copy,
        interval=0.05,
        stop=lambda: len(views) >= 2,
        on_result=on_result,
    )
    assert [e.state for e in views[0].entries] == ["not_started", "not_started"]
    assert [e.state for e in views[1].entries] == ["done", "not_started"]
    assert views[1].next.result.id == "custom_sigmoid"
    out = console.export_text()
    assert out.count("Graded at ") == 2 and "Next: custom_sigmoid" in out


def test_a_failed_checks_recipe_waits_for_the_student_to_ask_or_fail_often(working_copy, capsys):
    """The default feedback level (config.yaml `feedback:`): the report says a hint exists,
    `hint` shows the failed check's own hint first, and the third failed run shows it inline."""
    exercise = next(
        e for e in specfile.discover(working_copy / "exercises") if e.id == "custom_sigmoid"
    )
    recipe = next(c for c in exercise.checks if c.id == "backward_vjp").hint.en
    shutil.copyfile(
        SOLUTIONS / "mutants" / "custom_sigmoid" / "missing_one_minus_y.py",
        working_copy / "exercises" / "custom_sigmoid" / "custom_sigmoid.py",
    )

    def check():
        assert run(working_copy, "check", "custom_sigmoid", "--lang", "en") == 1
        return " ".join(capsys.readouterr().out.split())

    first = check()
    assert "There is a hint for this: `python -m grader hint custom_sigmoid`" in first
    assert recipe not in first
    assert run(working_copy, "hint", "custom_sigmoid", "--lang", "en") == 0
    asked = " ".join(capsys.readouterr().out.split())
    assert "for the checks of custom_sigmoid that failed" in asked and recipe in asked
    assert recipe in check()  # asked for: shown from now on
    progress = Progress.of(working_copy)
    progress.reset("custom_sigmoid")  # hints forgotten: back until failed often enough
    progress.save()
    assert progress.failures("custom_sigmoid") == 2
    assert recipe in check()  # the third failed run


def test_only_takes_a_check_title_as_the_report_shows_it(working_copy):
    """The report shows titles: --only takes one (either language, any case, or a part of
    exactly one title) as well as an id; a part of several titles names none."""
    from grader.cli.student import only_checks
    from grader.common.errors import GraderError

    exercises = [
        e for e in specfile.discover(working_copy / "exercises") if e.id == "manual_gradient"
    ]
    check = next(c for c in exercises[0].checks if c.id == "grad_g_value")
    # its title is also the start of grad_g_wide's: a whole title names its own check
    for name in ("grad_g_value", check.title.en, check.title.id.upper()):
        chosen = only_checks(exercises, [name])
        assert [c.id for c in chosen[0].checks] == ["grad_g_value"], name
    assert [c.id for c in only_checks(exercises, ["KEEPS SHAPE"])[0].checks] == ["df_shape_dtype"]
    with pytest.raises(GraderError, match="unknown check") as raised:
        only_checks(exercises, ["matches autograd"])  # several titles say it
    assert "several checks' titles: df_value, grad_g_value" in str(raised.value)


def test_only_says_what_a_name_that_picks_no_check_is(working_copy):
    """An exercise's id given to --only, a near miss: said as such, with what --only takes
    (ids only for the whole course: every title would fill a screen)."""
    from grader.cli.student import only_checks
    from grader.common.errors import GraderError

    course = specfile.discover(working_copy / "exercises")
    with pytest.raises(GraderError) as raised:
        only_checks(course, ["manual_gradient", "df_valu"])
    text = str(raised.value)
    assert "manual_gradient is an exercise, not a check" in text
    assert "`python -m grader check manual_gradient`" in text
    assert "df_valu (did you mean df_value?)" in text
    assert "custom_sigmoid: forward_value," in text and "(df(x) matches autograd)" not in text
    one = [e for e in course if e.id == "manual_gradient"]
    with pytest.raises(GraderError) as raised:
        only_checks(one, ["zzz"])
    assert "unknown check(s): zzz. Known: df_value (df(x) matches autograd)" in str(raised.value)

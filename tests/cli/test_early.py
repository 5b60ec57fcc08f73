"""grader.cli.early: the template started first of all on a guess from the raw arguments; a
command that grades takes it, any other command line leaves nothing behind."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import run_grader

from grader.cli import early


@pytest.mark.parametrize(
    "argv, grades",
    [
        ([], True),  # the course view
        (["--lang", "en"], True),
        (["check"], True),
        (["check", "manual_gradient", "--only", "df_value"], True),
        (["--submission", "list", "check"], True),  # an option's value is not the command
        (["--config", "check.yaml", "list"], False),
        (["watch"], True),
        (["validate", "custom_sigmoid"], True),
        (["draw"], True),
        (["list"], False),
        (["hint", "custom_sigmoid"], False),
        (["batch", "class", "--out", "out"], False),
        (["merge", "a", "b"], False),
        (["--help"], False),
        (["check", "-h"], False),
        (["--version"], False),
    ],
)
def test_the_guess_from_the_raw_arguments(argv, grades):
    assert early.wanted(argv) is grades


def test_the_options_that_take_a_value_are_the_parsers():
    """The guess skips an option's value; the parser's top-level options are the ones it knows
    (one added there and not here would make its value look like a command)."""
    import argparse

    from grader.cli.parser import parser

    valued = {
        flag
        for action in parser()._actions
        if action.option_strings
        and action.nargs != 0
        and not isinstance(
            action, (argparse._HelpAction, argparse._VersionAction, argparse._StoreTrueAction)
        )
        for flag in action.option_strings
    }
    assert valued == early.VALUED


def _grader(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TMPDIR=str(tmp_path), COLUMNS="100")
    env.pop("PYTHONPATH", None)
    return run_grader(*args, env=env)


def _templates(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.glob("grader-template-*"))


def test_a_command_line_that_grades_nothing_leaves_no_template(tmp_path):
    """A usage error after the guess said "grades", --help, and a command that grades nothing:
    the template started early (or none) is gone when the command ends."""
    done = _grader(tmp_path, "check", "--no-such-option")
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr
    assert _templates(tmp_path) == []
    done = _grader(tmp_path, "check", "--help")
    assert done.returncode == 0 and "usage:" in done.stdout
    assert _templates(tmp_path) == []


def test_a_check_grades_with_the_template_started_early(tmp_path):
    """`python -m grader check` takes the early template (main started one of its own before):
    the answer key gets every point and the template is closed at the end."""
    done = _grader(
        tmp_path, "check", "--submission", "solutions", "manual_gradient", "--lang", "en"
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Total: 19/19" in done.stdout
    assert _templates(tmp_path) == []


def test_main_takes_the_early_template_instead_of_starting_its_own(monkeypatch):
    """The handoff itself: main() asks grader.cli.early first, and a template it took is not
    closed again by run()'s clean-up."""
    from grader.cli import main as cli_main

    class Started:
        closed = 0

        def close(self):
            Started.closed += 1

    started = Started()
    monkeypatch.setattr(early, "_started", started)
    seen = []
    monkeypatch.setattr(
        cli_main, "_run", lambda args, console, sandbox, busy: seen.append(sandbox) or 0
    )
    monkeypatch.setattr(cli_main, "_busy", lambda args, console: None)
    assert cli_main.main(["validate", "custom_sigmoid"]) == 0
    assert seen == [started] and Started.closed == 1  # main's finally closed what it took
    early.close()  # nothing left to close
    assert Started.closed == 1

"""Every way the command line can end early: one message, the right exit code, and never the
grader's traceback (the template's stderr is captured too: capfd sees child processes)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, run_grader

from grader.cli import main as cli
from grader.cli.main import main

SPEC = (EXERCISES / "manual_gradient" / "exercise.yaml").read_text()


def _exercises(tmp_path, text):
    folder = tmp_path / "exercises" / "manual_gradient"
    folder.mkdir(parents=True)
    (folder / "exercise.yaml").write_text(text)
    return ["--exercises-dir", str(tmp_path / "exercises")]


def _usage_error(tmp_path, fast):
    """Each case: (arguments, a phrase the message must hold)."""
    a_file = tmp_path / "answer.py"
    a_file.write_text("x = 1\n")
    bad_config = tmp_path / "bad.yaml"
    bad_config.write_text("examples: many\n")
    (tmp_path / "class").mkdir()
    return {
        "unknown id": (fast + ["check", "nope"], "unknown exercise(s): nope"),
        "missing submission": (
            fast + ["check", "--submission", str(tmp_path / "nope")],
            "submission directory not found",
        ),
        "submission is a file": (
            fast + ["check", "--submission", str(a_file)],
            "is a file, not a folder",
        ),
        "config error": (
            ["--config", str(bad_config), "check", "manual_gradient"],
            "bad.yaml, line 1, examples",
        ),
        "spec error": (
            fast + _exercises(tmp_path, SPEC.replace("points: 3", "points: x", 1)) + ["check"],
            "exercise.yaml, line",
        ),
        "validate without solutions": (
            fast + ["validate", "manual_gradient", "--solutions", str(tmp_path / "nope")],
            "solutions folder not found",
        ),
        "watch a missing folder": (
            fast + ["watch", "--submission", str(tmp_path / "nope")],
            "submission directory not found",
        ),
        "json into a folder": (
            fast + ["check", "manual_gradient", "--json", str(tmp_path)],
            "is a folder",
        ),
        "empty class": (
            fast + ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out")],
            "no submissions in",
        ),
    }


CASES = [
    "unknown id",
    "missing submission",
    "submission is a file",
    "config error",
    "spec error",
    "validate without solutions",
    "watch a missing folder",
    "json into a folder",
    "empty class",
]


@pytest.mark.parametrize("case", CASES)
def test_usage_errors_exit_2_with_one_message_and_no_traceback(case, tmp_path, fast, capfd):
    args, phrase = _usage_error(tmp_path, fast)[case]
    assert main(args) == 2
    out, err = capfd.readouterr()
    assert phrase in err, err
    assert "Traceback" not in out + err and "Error:" not in err.replace("error:", "")
    assert err.count("error:") == 1


def test_a_reference_with_a_typo_is_a_spec_error_before_anyone_is_graded(tmp_path, fast, capfd):
    text = SPEC.replace("torch.sin(3*x)", "torch.sinn(3*x)", 1)
    assert text != SPEC
    args = fast + _exercises(tmp_path, text) + ["check", "--submission", str(SOLUTIONS)]
    assert main(args) == 2
    out, err = capfd.readouterr()
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "sinn" in row)
    assert f"exercise.yaml, line {line}, references.f.expr" in err, err
    assert "sinn" in err and "Traceback" not in out + err
    assert "Total" not in out  # nobody was graded


def test_json_into_a_missing_folder_creates_it(tmp_path, fast, capfd):
    target = tmp_path / "new" / "deeper" / "result.json"
    (tmp_path / "empty").mkdir()
    code = main(
        fast
        + [
            "check",
            "manual_gradient",
            "--submission",
            str(tmp_path / "empty"),
            "--json",
            str(target),
        ]
    )
    out, err = capfd.readouterr()
    assert code == 1  # the file is missing: a submission problem, data in the result
    assert json.loads(target.read_text())["exercises"][0]["status"] == "missing"
    assert "Traceback" not in out + err


def test_a_grader_bug_is_a_bug_report_with_versions(monkeypatch, fast, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("an invariant broke")

    monkeypatch.setattr(cli, "_list", broken)
    assert main(fast + ["list"]) == cli.BUG == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: an invariant broke" in err
    assert "bug in the grader" in err and "Please report it" in err and "Laporkan" in err
    assert "torch 2." in err and "hypothesis" in err and "python 3." in err


def test_an_unwritable_output_is_named_not_a_traceback(monkeypatch, tmp_path, fast, capsys):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "out" / "grades.csv"))

    monkeypatch.setattr(cli, "_list", refuse)
    assert main(fast + ["list"]) == 2
    err = capsys.readouterr().err
    assert "grades.csv: Permission denied" in err and "Traceback" not in err


def _grader(*args, cwd=ROOT, **kwargs):
    return run_grader(*args, cwd=cwd, env=dict(os.environ, COLUMNS="200"), timeout=240, **kwargs)


def test_the_real_command_ends_cleanly_before_any_worker_starts():
    done = _grader("check", "nope")
    assert done.returncode == 2
    assert done.stderr.count("error:") == 1 and "unknown exercise(s): nope" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_students_syntax_error_is_their_result_not_a_grader_traceback(tmp_path, fast):
    (tmp_path / "manual_gradient.py").write_text("def df(x):\n    return (x\n")
    done = _grader(
        *fast, "check", "manual_gradient", "--submission", str(tmp_path), "--lang", "en"
    )
    assert done.returncode == 1
    assert "SyntaxError in manual_gradient.py, line 2" in done.stdout
    assert "Traceback" not in done.stderr + done.stdout and "grader/" not in done.stderr


def test_a_closed_pipe_ends_quietly():
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "list"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader goes away before the first line (`| head -0`)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_the_readme_exit_code_table_lists_every_code_the_cli_returns():
    readme = (ROOT / "README.md").read_text()
    table = [line for line in readme.splitlines() if line.startswith("| **")]
    codes = {int(c) for line in table for c in re.findall(r"\*\*(\d+)\*\*", line)}
    assert {0, 1, cli.USAGE, cli.BUG, 130, 141} <= codes
    assert any("bug in the grader" in line for line in table if f"**{cli.BUG}**" in line)


SLOW = """

import functools as _functools
import inspect as _inspect
import time as _time


def _slow(fn):
    @_functools.wraps(fn)
    def slowly(*args, **kwargs):
        _time.sleep(1.5)  # well within each call's limit, but many calls
        return fn(*args, **kwargs)

    return slowly


for _name, _value in list(globals().items()):
    if _inspect.isfunction(_value) and _value.__module__ == __name__ and _name[0] != "_":
        globals()[_name] = _slow(_value)
"""


def test_ctrl_c_while_two_exercises_are_graded_at_once_ends_the_check_at_once(tmp_path, fast):
    """A student's check grades two exercises at once (in threads): Ctrl-C in the middle ends
    it as before, exit 130 and one line, not after the exercises still in flight.
    graph_tracking comes first in the course and has the most calls of the three, so it begins
    first (the longest first) and its panel is shown while both slow exercises are in flight."""
    ids = ["graph_tracking", "vector_backward", "loss_gradients"]  # in the course's order
    (tmp_path / "graph_tracking.py").write_bytes((SOLUTIONS / "graph_tracking.py").read_bytes())
    for ex in ids[1:]:  # minutes of calls each, were they graded to the end
        (tmp_path / f"{ex}.py").write_text((SOLUTIONS / f"{ex}.py").read_text() + SLOW)
    env = dict(os.environ, COLUMNS="200", GRADER_CACHE=str(tmp_path / "cache"), GRADER_AT_ONCE="2")
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", *fast, "check", *ids, "--submission", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in proc.stdout:  # the first exercise's panel: the other two are in flight
            if "(graph_tracking)" in line:
                break
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        code = proc.wait(timeout=120)
        waited = time.monotonic() - start
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code == 130
    assert "interrupted" in err and "Traceback" not in err + out
    assert waited < 60  # not the minutes the two slow exercises would take


def test_leaving_runs_the_exit_functions_flushes_the_output_and_keeps_the_code():
    """The command line ends with os._exit (torch's teardown took 0.4 s of every command), after
    what Python's own exit would do that matters."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import atexit, sys; from grader.cli.main import leave; "
            "atexit.register(lambda: print('exit functions ran')); "
            "print('unflushed', end=''); sys.stderr.write('to stderr'); leave(3)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3
    assert done.stdout == "unflushedexit functions ran\n" and done.stderr == "to stderr"

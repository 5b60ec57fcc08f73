"""The command line: exit codes 0/1/2, the JSON contract, list and hint."""

from __future__ import annotations

import json

import pytest
from conftest import EXERCISES, SOLUTIONS

from grader.cli.main import main

pytestmark = pytest.mark.usefixtures("shared_template")  # see conftest


def test_key_passes_with_json(tmp_path, fast, capsys):
    out = tmp_path / "r.json"
    code = main(
        fast + ["check", "manual_gradient", "--submission", str(SOLUTIONS), "--json", str(out)]
    )
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "grader-result/1"
    assert doc["submission"] == "solutions" and doc["score"] == doc["max_score"] == 19
    env = doc["environment"]
    assert {"grader", "torch", "python", "seed", "spec_hashes"} <= set(env)
    ex = doc["exercises"][0]
    assert ex["id"] == "manual_gradient" and ex["status"] == "passed"
    check = ex["checks"][0]
    assert {"id", "status", "points", "max_points", "message", "counterexample", "hint"} <= set(
        check
    )
    assert "Total: 19/19" in capsys.readouterr().out


def test_check_of_one_exercise_claims_nothing_of_the_course(tmp_path, fast, capsys):
    args = ["check", "manual_gradient", "--submission", str(SOLUTIONS)]
    assert main(fast + args) == 0
    out = capsys.readouterr().out
    assert "manual_gradient passes!" in out and "All exercises" not in out
    assert main(fast + [*args, "--lang", "id", "--feedback", str(tmp_path / "f.md")]) == 0
    assert "manual_gradient lulus!" in capsys.readouterr().out
    assert "`manual_gradient` mendapat nilai penuh." in (tmp_path / "f.md").read_text()
    assert main(fast + [*args, "--only", "df_value"]) == 0
    assert "1 of 1 checks run pass." in capsys.readouterr().out


def test_feedback_of_a_course_not_started_says_so_once_per_exercise(tmp_path, fast, starters):
    path = tmp_path / "feedback.md"
    assert main(fast + ["check", "--submission", str(starters), "--feedback", str(path)]) == 1
    text = path.read_text()
    ids = sorted(p.stem for p in starters.glob("*.py"))
    # nan_debugging's starter holds the code to debug, which runs: still the starter as
    # released, so not started either (grader.submissions.answer).
    for eid in ids:
        shown = eid.replace("_", "\\_")
        assert f"(`{eid}`) | 0/" in text and f" in {shown}.py (its docstrings say" in text
    assert text.count("Not started: write ") == len(ids)
    assert text.count("raised NotImplementedError") <= 3  # nan_debugging's find_nan_source
    assert len(text.splitlines()) < 250  # it was 1350
    assert str(starters) not in text


def test_starter_fails_with_exit_1(fast, capsys, starters):
    assert main(fast + ["check", "manual_gradient", "--submission", str(starters)]) == 1
    out = capsys.readouterr().out
    assert "NotImplementedError" in out and "python -m grader hint manual_gradient" in out
    assert "Not awarded yet" in out  # why a constraint check earns nothing yet


def test_language_switch(fast, capsys, starters):
    main(fast + ["check", "manual_gradient", "--lang", "id", "--submission", str(starters)])
    assert "melempar NotImplementedError" in capsys.readouterr().out


def test_unknown_exercise_is_a_usage_error(fast, capsys):
    assert main(fast + ["check", "nope"]) == 2
    assert "unknown exercise(s): nope" in capsys.readouterr().err


def test_broken_spec_exits_2_naming_file_and_line(tmp_path, fast, capsys):
    folder = tmp_path / "exercises" / "manual_gradient"
    folder.mkdir(parents=True)
    text = (EXERCISES / "manual_gradient" / "exercise.yaml").read_text()
    (folder / "exercise.yaml").write_text(text.replace("points: 3", "points: three", 1))
    code = main(fast + ["--exercises-dir", str(tmp_path / "exercises"), "list"])
    err = capsys.readouterr().err
    assert code == 2
    assert "exercise.yaml, line" in err and "points: expected a number, got 'three'" in err
    assert "Traceback" not in err


def test_list_and_hint(fast, capsys, working_copy, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(fast + ["list", "--lang", "en"]) == 0
    assert "Gradients of complex functions by hand" in capsys.readouterr().out
    assert (
        main(
            fast
            + [
                "--exercises-dir",
                str(working_copy / "exercises"),
                "hint",
                "manual_gradient",
                "--lang",
                "id",
            ]
        )
        == 0
    )
    assert "aturan perkalian" in capsys.readouterr().out


def test_missing_submission_directory(tmp_path, fast, capsys):
    assert main(fast + ["check", "--submission", str(tmp_path / "nope")]) == 2
    assert "submission directory not found" in capsys.readouterr().err


def test_colour_only_on_a_terminal_and_never_with_no_color(fast, capsys, monkeypatch):
    args = fast + [
        "check",
        "manual_gradient",
        "--submission",
        str(SOLUTIONS),
        "--only",
        "df_value",
    ]
    assert main(args) == 0
    assert "\x1b[" not in capsys.readouterr().out  # piped: plain text
    monkeypatch.setenv("FORCE_COLOR", "1")  # as a terminal
    main(args)
    assert "\x1b[32m" in capsys.readouterr().out  # green
    monkeypatch.setenv("NO_COLOR", "1")
    main(args)
    assert "\x1b[32m" not in capsys.readouterr().out


def test_errors_on_stderr_are_not_hard_wrapped_when_piped(fast, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    assert main(fast + ["check", "no_such_exercise_with_a_rather_long_name_indeed"]) == 2
    err = capsys.readouterr().err
    assert "unknown exercise(s): no_such_exercise_with_a_rather_long_name_indeed; known:" in err


def test_list_speaks_one_language_and_piped_lines_end_without_spaces(fast, capsys):
    """The table's title and its columns in the same language; rich pads table lines to the
    width, which a pipe (capsys, a file, CI) must not get."""
    assert main(fast + ["list", "--lang", "id"]) == 0
    out = capsys.readouterr().out
    assert "Latihan" in out and "judul" in out and "poin" in out and "title" not in out
    assert main(fast + ["list", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Exercises" in out and "title" in out and "judul" not in out
    assert [line for line in out.splitlines() if line != line.rstrip()] == []

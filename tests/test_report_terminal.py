"""The terminal report: per-check feedback, counterexample, hint, bonus and hidden counts, and
student-controlled text shown literally (never read as rich markup)."""

from __future__ import annotations

import dataclasses

from rich.console import Console

from classdata import check, submission, t
from grader.report import terminal
from grader.results import ExerciseResult


def _render(result, lang="en") -> str:
    console = Console(width=200, record=True, force_terminal=False, color_system=None)
    terminal.render(result, lang, console)
    return console.export_text()


def test_failed_check_shows_message_counterexample_and_hint():
    out = _render(submission("budi", {"a": "failed"}))
    assert "a is wrong: got 1 <want> 2" in out
    assert "Failing input: x = tensor([4.5])" in out
    assert "Hint: hint for a" in out
    assert "Total: 2/4" in out and "python -m grader hint ex" in out
    assert "hint for b" not in out  # passed checks stay one line


def test_language_switch():
    out = _render(submission("budi", {"a": "failed"}), lang="id")
    assert "Contoh gagal:" in out and "Petunjuk: hint for a (id)" in out and "poin" in out


def test_full_marks_line():
    result = submission("ana", {})
    out = _render(result)
    assert "Total: 4/4" in out and "All exercises pass!" in out


def test_student_text_is_not_markup():
    result = submission("budi", {"a": "failed"})
    row = result.exercises[0].checks[0]
    result.exercises[0].checks[0] = dataclasses.replace(
        row, message=t("[red]got [bold]1[/bold][/red] \\[x]"), counterexample="s = '[/]'",
        traceback=['  File "ex.py", line 3, in f', "    return '[link=x]y[/link]'"])
    out = _render(result)
    assert "[red]got [bold]1[/bold][/red] \\[x]" in out
    assert "s = '[/]'" in out and "return '[link=x]y[/link]'" in out


def test_hidden_count_bonus_and_whole_exercise_failure():
    checks = [check("a", "passed", 2, 2), check("x", "failed", 0, 1, message="no", bonus=True)]
    ex = ExerciseResult(id="ex", title=t("Ex"), status="passed", checks=checks, hidden_checks=2)
    out = _render(dataclasses.replace(submission("s", {}), exercises=[ex]))
    assert "2/2 points + bonus 0/1" in out and "(bonus)" in out
    assert "2 hidden check(s) run only when the class is graded." in out
    broken = ExerciseResult(id="ex", title=t("Ex"), status="error",
                            checks=[check("a", "error", 0, 2, message="same reason")],
                            message=t("SyntaxError in ex.py, line 3"),
                            traceback=['  File "ex.py", line 3'])
    out = _render(dataclasses.replace(submission("s", {}), exercises=[broken]))
    assert "SyntaxError in ex.py, line 3" in out and 'File "ex.py", line 3' in out
    assert "same reason" not in out  # the exercise's reason is said once, not per check

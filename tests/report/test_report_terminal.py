"""The terminal report: per-check feedback, counterexample, hint, bonus and hidden counts, and
student-controlled text shown literally (never read as rich markup)."""

from __future__ import annotations

import dataclasses

from classdata import check, submission, t
from rich.console import Console

from grader.outcomes.results import ExerciseResult
from grader.report import terminal


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


def test_full_marks_line_speaks_of_the_exercises_graded_only():
    result = submission("ana", {})
    out = _render(result)
    assert "Total: 4/4" in out and "ex passes!" in out
    assert "ex lulus!" in _render(result, lang="id")
    two = dataclasses.replace(
        result, exercises=[result.exercises[0], dataclasses.replace(result.exercises[0], id="e2")]
    )
    assert "2 of 2 exercises graded pass." in _render(two)
    assert "2 dari 2 latihan yang dinilai lulus." in _render(two, lang="id")
    for out in (_render(result), _render(two), _render(two, lang="id")):
        assert "All exercises" not in out and "Semua latihan" not in out


def test_check_only_says_the_checks_run_pass():
    console = Console(width=200, record=True, force_terminal=False, color_system=None)
    terminal.render_total(submission("ana", {}), "en", console, only=True)
    assert "3 of 3 checks run pass." in console.export_text()


def test_student_text_is_not_markup():
    result = submission("budi", {"a": "failed"})
    row = result.exercises[0].checks[0]
    result.exercises[0].checks[0] = dataclasses.replace(
        row,
        message=t("[red]got [bold]1[/bold][/red] \\[x]"),
        counterexample="s = '[/]'",
        traceback=['  File "ex.py", line 3, in f', "    return '[link=x]y[/link]'"],
    )
    out = _render(result)
    assert "[red]got [bold]1[/bold][/red] \\[x]" in out
    assert "s = '[/]'" in out and "return '[link=x]y[/link]'" in out


def test_hidden_count_bonus_and_whole_exercise_failure():
    checks = [check("a", "passed", 2, 2), check("x", "failed", 0, 1, message="no", bonus=True)]
    ex = ExerciseResult(id="ex", title=t("Ex"), status="passed", checks=checks, hidden_checks=2)
    out = _render(dataclasses.replace(submission("s", {}), exercises=[ex]))
    assert "2/2 points + bonus 0/1" in out and "(bonus)" in out
    assert "2 hidden check(s) run only when the class is graded." in out
    broken = ExerciseResult(
        id="ex",
        title=t("Ex"),
        status="error",
        checks=[check("a", "error", 0, 2, message="same reason")],
        message=t("SyntaxError in ex.py, line 3"),
        traceback=['  File "ex.py", line 3'],
    )
    out = _render(dataclasses.replace(submission("s", {}), exercises=[broken]))
    assert "SyntaxError in ex.py, line 3" in out and 'File "ex.py", line 3' in out
    assert "same reason" not in out  # the exercise's reason is said once, not per check


def _two_checks_one_cause(cause="raised:ValueError:f"):
    rows = [
        check("a", "error", 0, 2, message="f raised ValueError: bad"),
        check("b", "error", 0, 1, message="f raised ValueError: bad"),
        check("c", "failed", 0, 1, message="c is off"),
    ]
    rows[0] = dataclasses.replace(rows[0], cause=cause)
    rows[1] = dataclasses.replace(rows[1], cause=cause)
    ex = ExerciseResult(id="ex", title=t("Ex"), status="failed", checks=rows)
    return dataclasses.replace(submission("s", {}), exercises=[ex])


def test_one_cause_is_said_once_with_the_checks_it_blocks():
    out = _render(_two_checks_one_cause())
    assert out.count("f raised ValueError: bad") == 1
    assert "Blocks 2 checks: a, b." in out
    assert "hint for a" not in out and "hint for b" not in out  # unrelated to the cause
    assert "c is off" in out and "Hint: hint for c" in out


def test_a_function_not_written_yet_shows_neither_input_nor_hint():
    result = _two_checks_one_cause("raised:NotImplementedError:f")
    row = dataclasses.replace(
        result.exercises[0].checks[2],
        status="error",
        cause="raised:NotImplementedError:g",
        counterexample="x = 1",
        message=t("g raised NotImplementedError"),
    )
    result.exercises[0].checks[2] = row
    out = _render(result)
    assert "g raised NotImplementedError" in out
    assert "x = 1" not in out and "hint for c" not in out


def test_students_output_is_shown_capped_with_a_note():
    result = submission("budi", {"a": "failed"})
    row = result.exercises[0].checks[0]
    lines = "".join(f"line {i}\n" for i in range(50))
    result.exercises[0].checks[0] = dataclasses.replace(row, output=lines, output_cut=7)
    out = _render(result)
    assert "What your code printed during this call:" in out
    assert "| line 0" in out and "| line 19" in out and "| line 20" not in out
    assert f"({7 + len(lines.split(chr(10), 20)[-1])} more characters not shown)" in out


def test_helpful_hint_is_named():
    result = submission("budi", {"a": "failed"})
    row = result.exercises[0].checks[0]
    result.exercises[0].checks[0] = dataclasses.replace(row, helpful_hints=(2,))
    assert "Hint 2 helps here: `python -m grader hint ex`." in _render(result)


def test_fits_80_columns_and_texts_wrap_once():
    result = submission("budi", {"a": "failed"})
    row = result.exercises[0].checks[0]
    long = "A hint wrapped by hand\nin the YAML file, with\na second line."
    result.exercises[0].checks[0] = dataclasses.replace(row, hint=t(long), message=t("a is off"))
    result.exercises[0].title = t(
        "A title long enough to need wrapping at eighty columns, surely, with its points"
    )
    console = Console(width=80, record=True, force_terminal=False, color_system=None)
    terminal.render(result, "en", console)
    out = console.export_text()
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "2/4 points" in out and "…" not in out
    flat = " ".join(out.split())
    assert "A hint wrapped by hand in the YAML file, with a second line." in flat


def test_unwrap_keeps_list_items_and_paragraphs():
    assert terminal.unwrap("a\nb\n- c\n  d\n\ne") == "a b\n- c d\n\ne"
    assert (
        terminal.unwrap("- item\n  goes on\nafter the list\nit wraps")
        == "- item goes on\nafter the list it wraps"
    )


def test_a_title_that_says_bonus_is_not_tagged_bonus_again():
    said = dataclasses.replace(
        check("x", "failed", 0, 1, message="no", bonus=True),
        title=t("Bonus: backward can be differentiated again"),
    )
    ex = ExerciseResult(id="ex", title=t("Ex"), status="failed", checks=[said])
    out = _render(dataclasses.replace(submission("s", {}), exercises=[ex]))
    assert "Bonus: backward can be differentiated again" in out
    assert "(bonus)" not in out

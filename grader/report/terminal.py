"""The terminal report of one exercise (rich): per check, with the feedback to act on.

Plain lines, no boxes, so nothing is cut at 80 columns; texts are unwrapped once (specs wrap
their YAML by hand) and rich wraps them to the terminal. One failure that blocks several checks
(an exception in every call, a forbidden call) is said once, with the checks it blocks.
Everything a student wrote (messages quoting their values, tracebacks, output) is plain Text,
never read as markup.
"""

from __future__ import annotations

import re

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text as RichText

from grader.outcomes.progress import UNWRITTEN
from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult
from grader.report.statuswords import graded_note

STYLE = {
    "passed": ("✔", "green"),
    "failed": ("✘", "red"),
    "error": ("!", "red"),
    "timeout": ("⏱", "yellow"),
    "missing": ("?", "yellow"),
    "skipped": ("-", "dim"),
}

LABELS = {
    "id": {
        "points": "poin",
        "total": "Total",
        "counter": "Contoh gagal",
        "hint": "Petunjuk",
        "hidden": "{n} pemeriksaan tersembunyi hanya dijalankan saat penilaian kelas.",
        "passed_one": "{id} lulus!",
        "passed_some": "{p} dari {n} latihan yang dinilai lulus.",
        "passed_only": "{p} dari {n} pemeriksaan yang dijalankan lulus.",
        "next": "Jalankan `python -m grader hint {id}` untuk petunjuk.",
        "blocks": "Menghalangi {n} pemeriksaan: {ids}.",
        "blocks_all": "Semua {n} pemeriksaan terhalang.",
        "output": "Yang dicetak kodemu saat panggilan ini:",
        "cut": "... ({n} karakter lagi tidak ditampilkan)",
        "helps": "Petunjuk {n} membantu di sini: `python -m grader hint {id}`.",
        "held": "Ada petunjuk untuk ini: `python -m grader hint {id}`.",
    },
    "en": {
        "points": "points",
        "total": "Total",
        "counter": "Failing input",
        "hint": "Hint",
        "hidden": "{n} hidden check(s) run only when the class is graded.",
        "passed_one": "{id} passes!",
        "passed_some": "{p} of {n} exercises graded pass.",
        "passed_only": "{p} of {n} checks run pass.",
        "next": "Run `python -m grader hint {id}` for hints.",
        "blocks": "Blocks {n} checks: {ids}.",
        "blocks_all": "All {n} checks are blocked.",
        "output": "What your code printed during this call:",
        "cut": "... ({n} more characters not shown)",
        "helps": "Hint {n} helps here: `python -m grader hint {id}`.",
        "held": "There is a hint for this: `python -m grader hint {id}`.",
    },
}

OUTPUT_LINES = 20
"""Lines of a student's output shown in the terminal (the JSON keeps what the result holds)."""


def _fmt(x: float) -> str:
    return f"{x:g}"


_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")


def unwrap(text: str) -> str:
    """Join the lines a spec author wrapped by hand, keeping blank lines and list items, so the
    terminal wraps the text once, to its own width."""
    out: list[str] = []
    item_indent = None  # the indentation of the list item being continued, if any
    for line in text.strip("\n").splitlines():
        indent = len(line) - len(line.lstrip())
        if _ITEM.match(line):
            item_indent = indent
            out.append(line.rstrip())
            continue
        ends_item = item_indent is not None and indent <= item_indent
        if out and out[-1] and line.strip() and not ends_item:
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            item_indent = None
            out.append(line.rstrip())
    return "\n".join(out)


def groups(e: ExerciseResult) -> list[tuple[CheckResult, list[CheckResult]]]:
    """Failures that block two or more checks the same way: (first check, all of them).

    Checks share a failure when the grader named one cause for them (see Verdict.cause), or,
    failing that, when their status, message and traceback are the same."""
    by_key: dict = {}
    for c in e.checks:
        if c.status in ("passed", "skipped") or c.message is None:
            continue
        key = c.cause or (c.status, c.message.en, tuple(c.traceback))
        by_key.setdefault(key, []).append(c)
    return [(rows[0], rows) for rows in by_key.values() if len(rows) > 1 or _unwritten(rows[0])]


def _unwritten(c: CheckResult) -> bool:
    """Blocked by a function that still raises NotImplementedError (a starter's): any input
    fails, so neither the input nor the check's hint helps yet."""
    return (c.cause or "").startswith(UNWRITTEN)


def _line(*parts) -> RichText:
    return RichText.assemble(*parts)


def _output(c: CheckResult, words: dict) -> list[RichText]:
    if not c.output:
        return []
    lines = c.output.rstrip("\n").splitlines()
    cut = c.output_cut
    if len(lines) > OUTPUT_LINES:
        cut += sum(len(x) + 1 for x in lines[OUTPUT_LINES:])
        lines = lines[:OUTPUT_LINES]
    out = [RichText(words["output"], style="bold")]
    out += [RichText("  | " + x, style="dim") for x in lines]
    if cut:
        out.append(RichText("  " + words["cut"].format(n=cut), style="dim"))
    return out


def _details(c: CheckResult, e: ExerciseResult, lang: str, *, with_hint: bool = True) -> list:
    words = LABELS[lang]
    color = STYLE[c.status][1]
    out = []
    if c.message is not None:
        out.append(RichText(unwrap(c.message.get(lang)), style=color))
    if _unwritten(c):  # where to write it is all that helps
        return out + [RichText("  " + line, style="dim") for line in c.traceback[-2:-1]]
    if c.counterexample:
        out.append(_line((f"{words['counter']}: ", "bold"), c.counterexample))
    out += [RichText("  " + line, style="dim") for line in c.traceback]
    out += _output(c, words)
    if with_hint and c.hint is not None:
        out.append(_line((f"{words['hint']}: ", "cyan"), unwrap(c.hint.get(lang))))
    elif with_hint and c.held_hint is not None:  # the feedback level keeps it back
        out.append(RichText(words["held"].format(id=e.id), style="cyan"))
    if c.helpful_hints:
        out.append(
            RichText(
                words["helps"].format(n=", ".join(map(str, c.helpful_hints)), id=e.id),
                style="cyan",
            )
        )
    return out


def header(e: ExerciseResult, lang: str) -> Table:
    """Title and id on the left (wrapped if need be), the points on the right (never split)."""
    icon, color = STYLE[e.status]
    words = LABELS[lang]
    points = RichText(f"{_fmt(e.score)}/{_fmt(e.max_score)} {words['points']}", style="bold")
    if e.bonus_max:
        points.append(f" + bonus {_fmt(e.bonus_score)}/{_fmt(e.bonus_max)}", style="magenta")
    grid = Table.grid(expand=True, padding=(0, 1))
    grid.add_column(width=1, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_column(justify="right", no_wrap=True)
    grid.add_row(
        RichText(icon, style=color),
        _line((e.title.get(lang), "bold"), (f" ({e.id})", "dim")),
        points,
    )
    return grid


def exercise_report(e: ExerciseResult, lang: str, *, only: set | None = None) -> Group:
    """The full report of one exercise; `only`: the check ids to show (all by default)."""
    words = LABELS[lang]
    parts: list = [header(e, lang)]
    note = graded_note(e.file, e.ignored, lang)
    if note:
        parts.append(
            RichText(note, style="yellow" if "both" in dict(e.ignored).values() else "dim")
        )
    table = Table(show_header=False, box=None, padding=(0, 0, 0, 1), expand=True)
    table.add_column(width=3, no_wrap=True)
    table.add_column(ratio=1)
    table.add_column(justify="right", no_wrap=True)
    shown = [c for c in e.checks if only is None or c.id in only]
    blocked: dict[str, int] = {}
    if e.message is not None:
        table.add_row(
            RichText("!", style="red"),
            RichText(unwrap(e.message.get(lang)), style=STYLE[e.status][1]),
            "",
        )
        for line in e.traceback:
            table.add_row("", RichText("  " + line, style="dim"), "")
        if len(shown) > 1:
            table.add_row("", RichText(words["blocks_all"].format(n=len(shown)), style="dim"), "")
        blocked = {c.id: 0 for c in shown}
    else:
        for n, (first, rows) in enumerate(groups(e), start=1):
            rows = [c for c in rows if c in shown]
            if not rows:
                continue
            icon, color = STYLE[first.status]
            detail = _details(first, e, lang, with_hint=False)
            if len(rows) > 1:
                detail.append(
                    RichText(
                        words["blocks"].format(n=len(rows), ids=", ".join(c.id for c in rows)),
                        style="dim",
                    )
                )
            table.add_row(RichText(f"[{n}]", style=color), Group(*detail), "")
            blocked.update({c.id: n for c in rows})
    for c in shown:
        icon, color = STYLE[c.status]
        title = RichText(c.title.get(lang))
        if c.bonus and "bonus" not in c.title.get(lang).lower():  # a title may say it
            title.append(" (bonus)", style="magenta")
        if blocked.get(c.id):
            title.append(f"  [{blocked[c.id]}]", style="dim")
        table.add_row(RichText(icon, style=color), title, f"{_fmt(c.points)}/{_fmt(c.max_points)}")
        if c.status == "passed" or c.id in blocked:
            continue
        if c.status == "skipped":  # a constraint not yet awarded: say why, briefly
            if c.message is not None:
                table.add_row("", RichText(unwrap(c.message.get(lang)), style="dim"), "")
            continue
        table.add_row("", Group(*_details(c, e, lang)), "")
    parts.append(table)
    if e.hidden_checks:
        parts.append(RichText(words["hidden"].format(n=e.hidden_checks), style="dim"))
    return Group(*parts)


def exercise_panel(e: ExerciseResult, lang: str) -> Group:
    """The report of one exercise followed by a blank line (kept for callers of the old name)."""
    return Group(exercise_report(e, lang), RichText(""))


def render(result: SubmissionResult, lang: str, console: Console | None = None) -> None:
    console = console or Console()
    for e in result.exercises:
        console.print(exercise_panel(e, lang))
    render_total(result, lang, console)


def passed_line(result: SubmissionResult, lang: str, *, only: bool = False) -> str:
    """What passes, said of what was graded (one exercise, some, or only some checks: `check
    --only`), never of the whole course."""
    words = LABELS[lang]
    if only:
        checks = [c for e in result.exercises for c in e.checks]
        passed = sum(c.status == "passed" for c in checks)
        return words["passed_only"].format(p=passed, n=len(checks))
    if len(result.exercises) == 1:
        return words["passed_one"].format(id=result.exercises[0].id)
    passed = sum(e.status == "passed" for e in result.exercises)
    return words["passed_some"].format(p=passed, n=len(result.exercises))


def render_total(
    result: SubmissionResult, lang: str, console: Console, *, only: bool = False
) -> None:
    """The total and what to do next; only: `check --only` ran some checks, not the exercises."""
    words = LABELS[lang]
    style = "green" if result.full_marks else "red"
    console.print(
        RichText(
            f"{words['total']}: {_fmt(result.score)}/{_fmt(result.max_score)}",
            style=f"bold {style}",
        )
    )
    if result.full_marks:
        console.print(RichText(passed_line(result, lang, only=only), style="green"))
    else:
        first = next(e for e in result.exercises if e.status != "passed")
        console.print(RichText(words["next"].format(id=first.id), style="dim"))

"""The course view in the terminal: full feedback for the exercise to work on, one line for each
exercise, the total, and what to do next (as rustlings does)."""

from __future__ import annotations

from datetime import datetime

from rich.console import Console
from rich.table import Table
from rich.text import Text as RichText

from grader.outcomes.progress import Course, Entry, unwritten
from grader.report import terminal

WORDS = {
    "id": {
        "done": "selesai",
        "in_progress": "sedang dikerjakan",
        "not_started": "belum mulai",
        "missing": "file tidak ada",
        "title": "Latihan",
        "total": "Total: {s}/{m} poin, {d}/{n} latihan selesai",
        "next": "Berikutnya: {id} ({file})",
        "todo_not_started": "Tulis {fns} di file itu (docstring-nya menjelaskan apa yang "
        "diminta), lalu jalankan `python -m grader` lagi.",
        "todo_missing": "Simpan jawabanmu di file itu.",
        "todo_in_progress": "{n} pemeriksaan belum lulus; rinciannya di atas.",
        "todo_error": "Kodenya belum bisa dijalankan; perbaiki kesalahan di atas.",
        "hint": "Butuh petunjuk? `python -m grader hint {id}` (satu per satu).",
        "all": "Semua latihan selesai! {s}/{m} poin.",
        "ran": "Dinilai pukul {t}",
    },
    "en": {
        "done": "done",
        "in_progress": "in progress",
        "not_started": "not started",
        "missing": "file missing",
        "title": "Exercises",
        "total": "Total: {s}/{m} points, {d}/{n} exercises done",
        "next": "Next: {id} ({file})",
        "todo_not_started": "Write {fns} in that file (its docstrings say what to do), then "
        "run `python -m grader` again.",
        "todo_missing": "Save your answer in that file.",
        "todo_in_progress": "{n} check(s) do not pass yet; the details are above.",
        "todo_error": "The code cannot run yet; fix the error above.",
        "hint": "Stuck? `python -m grader hint {id}` (one hint at a time).",
        "all": "All exercises done! {s}/{m} points.",
        "ran": "Graded at {t}",
    },
}
STATE_STYLE = {
    "done": ("✔", "green"),
    "in_progress": ("✘", "red"),
    "not_started": ("·", "dim"),
    "missing": ("?", "yellow"),
}


def _fmt(x: float) -> str:
    return f"{x:g}"


def overview(course: Course, lang: str) -> Table:
    """One line per exercise: state, id, points."""
    words = WORDS[lang]
    table = Table(
        show_header=False,
        box=None,
        padding=(0, 0, 0, 1),
        title=words["title"],
        title_justify="left",
        title_style="bold",
    )
    table.add_column(width=3, no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    for n, entry in enumerate(course.entries, start=1):
        icon, style = STATE_STYLE[entry.state]
        marker = " ←" if entry is course.next else ""
        table.add_row(
            RichText(icon, style=style),
            RichText(f"{n}. {entry.result.id}{marker}", style="bold" if marker else ""),
            RichText(words[entry.state], style=style),
            f"{_fmt(entry.result.score)}/{_fmt(entry.result.max_score)}",
        )
    return table


def todo(entry: Entry, lang: str) -> str:
    """What to do next in this exercise, in one sentence."""
    words = WORDS[lang]
    if entry.state == "missing":
        return words["todo_missing"]
    if entry.state == "not_started":
        return words["todo_not_started"].format(fns=", ".join(unwritten(entry.result)))
    if entry.result.status == "error":
        return words["todo_error"]
    return words["todo_in_progress"].format(n=entry.failing)


def render(
    course: Course,
    lang: str,
    console: Console,
    *,
    ran_at: datetime | None = None,
    detail: bool = True,
) -> None:
    """The whole view; detail: the full report of the next exercise first."""
    words = WORDS[lang]
    nxt = course.next
    if ran_at is not None:
        console.print(RichText(words["ran"].format(t=ran_at.strftime("%H:%M:%S")), style="dim"))
    if detail and nxt is not None and nxt.state != "missing":
        console.print(terminal.exercise_panel(nxt.result, lang))
    console.print(overview(course, lang))
    total = words["total"].format(
        s=_fmt(course.score), m=_fmt(course.max_score), d=course.done, n=len(course.entries)
    )
    console.print(RichText(total, style="bold"))
    if nxt is None:
        console.print(
            RichText(
                words["all"].format(s=_fmt(course.score), m=_fmt(course.max_score)),
                style="bold green",
            )
        )
        return
    console.print(RichText(words["next"].format(id=nxt.result.id, file=nxt.file), style="bold"))
    console.print(todo(nxt, lang))
    console.print(RichText(words["hint"].format(id=nxt.result.id), style="dim"))

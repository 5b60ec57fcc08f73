"""The terminal report (rich): per exercise and per check, with the feedback to act on."""

from __future__ import annotations

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text as RichText

from ..results import ExerciseResult, SubmissionResult

STYLE = {"passed": ("✔", "green"), "failed": ("✘", "red"), "error": ("!", "red"),
         "timeout": ("⏱", "yellow"), "missing": ("?", "yellow"), "skipped": ("-", "dim")}

LABELS = {
    "id": {"points": "poin", "total": "Total", "counter": "Contoh gagal", "hint": "Petunjuk",
           "hidden": "{n} pemeriksaan tersembunyi hanya dijalankan saat penilaian kelas.",
           "all": "Semua latihan lulus!", "next": "Jalankan `python -m grader hint {id}` "
                                                  "untuk petunjuk."},
    "en": {"points": "points", "total": "Total", "counter": "Failing input", "hint": "Hint",
           "hidden": "{n} hidden check(s) run only when the class is graded.",
           "all": "All exercises pass!", "next": "Run `python -m grader hint {id}` for hints."},
}


def _fmt(x: float) -> str:
    return f"{x:g}"


def exercise_panel(e: ExerciseResult, lang: str) -> Panel:
    icon, color = STYLE[e.status]
    words = LABELS[lang]
    parts = []
    if e.message is not None:
        parts.append(RichText(e.message.get(lang), style=color))
        for line in e.traceback:
            parts.append(RichText("  " + line, style="dim"))
    table = Table(show_header=False, box=None, padding=(0, 1), expand=True)
    table.add_column(width=2)
    table.add_column(ratio=1)
    table.add_column(justify="right", no_wrap=True)
    for c in e.checks:
        c_icon, c_color = STYLE[c.status]
        label = escape(c.title.get(lang)) + (" [magenta](bonus)[/]" if c.bonus else "")
        table.add_row(f"[{c_color}]{c_icon}[/]", label,
                      f"{_fmt(c.points)}/{_fmt(c.max_points)}")
        if c.status == "passed" or e.message is not None:
            continue
        if c.status == "skipped":  # a constraint not yet awarded: say why, briefly
            if c.message is not None:
                table.add_row("", f"[dim]{escape(c.message.get(lang))}[/]", "")
            continue
        detail = []
        if c.message is not None:
            detail.append(f"[{c_color}]{escape(c.message.get(lang))}[/]")
        if c.counterexample:
            detail.append(f"[bold]{words['counter']}:[/] {escape(c.counterexample)}")
        detail += [f"[dim]  {escape(line)}[/]" for line in c.traceback]
        if c.hint is not None:
            detail.append(f"[cyan]{words['hint']}:[/] {escape(c.hint.get(lang))}")
        table.add_row("", "\n".join(detail), "")
    parts.append(table)
    if e.hidden_checks:
        parts.append(RichText(words["hidden"].format(n=e.hidden_checks), style="dim"))
    title = (f"[{color}]{icon}[/] [bold]{escape(e.title.get(lang))}[/] [dim]({e.id})[/]  "
             f"{_fmt(e.score)}/{_fmt(e.max_score)} {words['points']}")
    if e.bonus_max:
        title += f" [magenta]+ bonus {_fmt(e.bonus_score)}/{_fmt(e.bonus_max)}[/]"
    return Panel(Group(*parts), title=title, title_align="left", border_style=color)


def render(result: SubmissionResult, lang: str, console: Console | None = None) -> None:
    console = console or Console()
    for e in result.exercises:
        console.print(exercise_panel(e, lang))
    render_total(result, lang, console)


def render_total(result: SubmissionResult, lang: str, console: Console) -> None:
    words = LABELS[lang]
    style = "green" if result.full_marks else "red"
    console.print(f"[bold {style}]{words['total']}: {_fmt(result.score)}/"
                  f"{_fmt(result.max_score)}[/]")
    if result.full_marks:
        console.print(f"[green]{words['all']}[/]")
    else:
        first = next(e for e in result.exercises if e.status != "passed")
        console.print(f"[dim]{words['next'].format(id=first.id)}[/]")

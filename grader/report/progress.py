"""Batch progress: a bar with ETA on a terminal, one plain line per submission in CI logs."""

from __future__ import annotations

import time

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m}:{s:02d}"


class BatchProgress:
    """Use as a context manager; call update(task, result, lost) as each submission ends."""

    def __init__(self, total: int, console: Console):
        self.total, self.console, self.done = total, console, 0
        self.started = time.monotonic()
        self.bar = None
        if console.is_terminal:
            self.bar = Progress(
                TextColumn("[bold]grading"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                TextColumn("{task.description}"),
                console=console,
            )
            self.task = self.bar.add_task("", total=total)

    def __enter__(self):
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()

    def update(self, task, result, lost) -> None:
        self.done += 1
        score = f"{result.score:g}/{result.max_score:g}"
        note = f"grader error: {lost.detail}" if lost else ""
        if self.bar is not None:
            self.bar.update(self.task, advance=1, description=escape(f"{task.id} {score}"))
            if lost:
                self.bar.console.print(f"[red]{escape(task.id)}: {escape(note)}[/]")
            return
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done)
        self.console.print(
            f"[{self.done}/{self.total}] {escape(task.id)} {score}"
            f"{' (' + escape(note) + ')' if note else ''}; elapsed "
            f"{_clock(elapsed)}, eta {_clock(eta)}",
            soft_wrap=True,
        )

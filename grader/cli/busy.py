"""The line that says what a student's command is doing while it grades, so that the screen is
never blank: loading the exercises, the first run's examples, then which exercise is graded (n
of N). A transient rich status, on stdout when it is a terminal, else on stderr when that is one;
nothing at all when both are piped (CI logs, `| less`), and never anything in a file (--json).
"""

from __future__ import annotations

import threading

from rich.console import Console
from rich.text import Text as RichText

WORDS = {
    "id": {
        "loading": "Memuat latihan...",
        "draw": "Pertama kali: menarik contoh sekali saja (lari berikutnya memakainya lagi)",
        "read": "Membaca contoh kursus",
        "grading": "Menilai {id} ({n} dari {t})",
    },
    "en": {
        "loading": "Loading the exercises...",
        "draw": "First run: drawing the examples, once (later runs reuse them)",
        "read": "Reading the course's examples",
        "grading": "Grading {id} ({n} of {t})",
    },
}


def terminal(*consoles: Console) -> Console | None:
    """The first console whose file is a terminal (a TTY, whatever FORCE_COLOR says: never a
    pipe, a file or Jupyter)."""
    for console in consoles:
        try:
            tty = console.file.isatty()
        except (AttributeError, ValueError, OSError):
            tty = False
        if tty and not console.is_dumb_terminal and not console.is_jupyter:
            return console
    return None


class Busy:
    """Use as a context manager around grading; grade() calls examples() and begin()."""

    def __init__(self, console: Console | None, lang: str):
        self.console, self.words = console, WORDS[lang]
        self.status = None
        self.first = False  # a first run draws examples: said on every line until it ends
        self.started = 0
        self.lock = threading.Lock()

    def __enter__(self) -> Busy:
        if self.console is not None:
            self.status = self.console.status(RichText(self.words["loading"]), spinner="dots")
            self.status.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def again(self) -> Busy:
        """A new line on the same console, started (watch: each regrade has its own)."""
        fresh = Busy(None, "en")
        fresh.console, fresh.words = self.console, self.words
        return fresh.__enter__()

    def stop(self) -> None:
        """Take the line away (before a report is printed in one piece)."""
        if self.status is not None:
            self.status.stop()
            self.status = None

    def _say(self, text: str) -> None:
        if self.status is not None:
            self.status.update(RichText(text))

    def examples(self, how: str) -> None:
        """how: "draw" (no examples kept for these checks yet: a first run, said as such until
        it ends) or "read" (the course's committed ones, exercises/<id>/examples.drawn)."""
        self.first = how == "draw"
        self._say(self.words[how] + "...")

    def begin(self, exercise_id: str, total: int) -> None:
        """An exercise starts (from the threads that grade: grader.common.turns)."""
        with self.lock:
            self.started += 1
            text = self.words["grading"].format(id=exercise_id, n=self.started, t=total)
        if self.first:
            text += " · " + self.words["draw"]
        self._say(text + "...")

"""`grader watch`: re-grade an exercise each time its file is saved.

Polls modification times (no extra dependency, works on every platform); the sandbox stays warm
between runs, so a re-grade costs only the checks.
"""

from __future__ import annotations

import time
from pathlib import Path

from grader.specs.model import Exercise
from grader.submissions import notebook


def snapshot(directory: Path, exercises: list[Exercise]) -> dict[str, tuple]:
    """The (path, mtime, size) of each exercise's file(s), by exercise id."""
    out = {}
    for ex in exercises:
        stamps = []
        for path in notebook.locate(directory, ex.file):
            try:
                st = path.stat()
            except OSError:
                continue
            stamps.append((str(path), st.st_mtime_ns, st.st_size))
        out[ex.id] = tuple(stamps)
    return out


def changed(before: dict, after: dict) -> list[str]:
    return [ex_id for ex_id, stamps in after.items() if before.get(ex_id) != stamps]


def watch(
    *, directory: Path, exercises: list[Exercise], on_change, interval: float = 0.5, stop=None
) -> None:
    """Call on_change(list of changed exercises) first for all, then after each save.

    stop: an optional callable; watching ends when it returns true (tests), else on Ctrl-C."""
    by_id = {e.id: e for e in exercises}
    seen = snapshot(directory, exercises)
    on_change(exercises)
    while not (stop and stop()):
        time.sleep(interval)
        now = snapshot(directory, exercises)
        ids = changed(seen, now)
        seen = now
        if ids:
            on_change([by_id[i] for i in ids])

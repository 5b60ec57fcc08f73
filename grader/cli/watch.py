"""`grader watch`: re-grade an exercise each time its file is saved.

Wakes on the save: watchfiles (the operating system's file events: inotify, FSEvents,
ReadDirectoryChangesW) tells when something in the folder changed, and the exercises' files'
modification times say which exercise; where watchfiles is missing, it polls every `interval`.
The sandbox stays warm between runs, so a re-grade costs only the checks.
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
    for _ in _wakes(directory, interval):
        if stop and stop():
            return
        now = snapshot(directory, exercises)
        ids = changed(seen, now)
        seen = now
        if ids:
            on_change([by_id[i] for i in ids])


def _wakes(directory: Path, interval: float):
    """Yields when something under directory may have changed, and at least every `interval`
    seconds (so that `stop` is asked)."""
    try:
        import watchfiles
    except ImportError:  # polling, as before
        while True:
            time.sleep(interval)
            yield
    events = watchfiles.watch(
        directory,
        rust_timeout=max(int(interval * 1000), 1),
        yield_on_timeout=True,
        debounce=50,
        step=10,
        raise_interrupt=False,
    )
    try:
        yield from events
    except OSError:  # a file system that gives no events (some network mounts): poll
        while True:
            time.sleep(interval)
            yield

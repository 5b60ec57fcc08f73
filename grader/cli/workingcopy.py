"""Where the student's working copy is, found from any folder inside it (no torch needed)."""

from __future__ import annotations

from pathlib import Path

PROJECT_MARKERS = ("exercises/ORDER",)


def find_root(start: Path) -> Path | None:
    """The working copy that holds `start`: the nearest folder above it with exercises/ORDER
    (so the grader works from any folder of the working copy, exercises/<id>/ say)."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if any((folder / m).is_file() for m in PROJECT_MARKERS):
            return folder
    return None

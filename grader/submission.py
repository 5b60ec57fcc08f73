"""Finding an exercise's file in a submission directory, and the scratch copy a worker sees."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

MAX_COPY_FILES = 200
MAX_COPY_BYTES = 5 * 2**20
SKIP_DIRS = {"__pycache__", ".git", ".venv", "venv", "node_modules"}
RELEASE_EXERCISES = "exercises"
"""Where a release copy keeps the students' files (grader/release.py writes that layout)."""


def locate(directory: Path, filename: str) -> list[Path]:
    """Every file of that name in the submission, flat or nested (zips nest them)."""
    directory = Path(directory)
    found = []
    for path in sorted(directory.rglob(filename)):
        rel = path.relative_to(directory).parts
        if path.is_file() and not any(p in SKIP_DIRS or p.startswith(".") for p in rel[:-1]):
            found.append(path)
    return found


def find(directory: Path, filename: str) -> list[Path]:
    """The file(s) graded for an exercise. A release copy (a student's repository, with an
    `exercises/` folder) is searched there first, as the student's own `python -m grader`
    does: its grader package and anything else in the repository are never graded."""
    inner = Path(directory) / RELEASE_EXERCISES
    if inner.is_dir() and not inner.is_symlink():
        found = locate(inner, filename)
        if found:
            return found
    return locate(directory, filename)


def scratch_copy(file: Path) -> Path:
    """A fresh directory with the student's file and the .py files beside it (capped)."""
    scratch = Path(tempfile.mkdtemp(prefix="grader-"))
    total, count = 0, 0
    for sibling in sorted(file.parent.glob("*.py")):
        size = sibling.stat().st_size
        if sibling != file and (count >= MAX_COPY_FILES or total + size > MAX_COPY_BYTES):
            continue
        shutil.copyfile(sibling, scratch / sibling.name)
        total, count = total + size, count + 1
    return scratch


def remove(scratch: Path) -> None:
    shutil.rmtree(scratch, ignore_errors=True)

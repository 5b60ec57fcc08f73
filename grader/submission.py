"""Finding an exercise's file in a submission directory, and the scratch copy a worker sees."""

from __future__ import annotations

import difflib
import os
import re
import shutil
import tempfile
import tokenize
from pathlib import Path

MAX_COPY_FILES = 200
MAX_COPY_BYTES = 5 * 2**20
SKIP_DIRS = {"__pycache__", ".git", ".venv", "venv", "node_modules"}


def locate(directory: Path, filename: str) -> list[Path]:
    """Every file of that name in the submission, flat or nested (zips nest them)."""
    directory = Path(directory)
    found = []
    for path in sorted(directory.rglob(filename)):
        rel = path.relative_to(directory).parts
        if path.is_file() and not any(p in SKIP_DIRS or p.startswith(".") for p in rel[:-1]):
            found.append(path)
    return found


class SourceError(Exception):
    """A file Python cannot decode: where, with which encoding, and why."""

    def __init__(self, line: int | None, encoding: str | None, reason: str):
        super().__init__(reason)
        self.line, self.encoding, self.reason = line, encoding, reason


def read_source(path: Path) -> str:
    """The text of a Python file, decoded as Python decodes it when it imports the file
    (tokenize.open): a UTF-8 BOM, a `# -*- coding: ... -*-` line, else UTF-8; newlines
    normalised. Raises SourceError with the line that cannot be decoded."""
    data = Path(path).read_bytes()
    lines = iter(data.splitlines(keepends=True))
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError as exc:  # an unknown codec, a cookie that contradicts a BOM, ...
        if "unknown encoding" in exc.msg or "encoding problem" in exc.msg:
            raise SourceError(_cookie_line(data), None, exc.msg) from None
        encoding = "utf-8"  # no usable cookie, and the first lines are not UTF-8: find where
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise SourceError(data[:exc.start].count(b"\n") + 1, encoding, exc.reason) from None
    except LookupError as exc:
        raise SourceError(_cookie_line(data), None, str(exc)) from None
    if text.startswith("\ufeff"):  # utf-8-sig strips it, a cookie of utf-8 does not
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _cookie_line(data: bytes) -> int | None:
    for number, line in enumerate(data.removeprefix(b"\xef\xbb\xbf").splitlines()[:2], start=1):
        if re.match(rb"^[ \t\f]*#.*?coding[:=]", line):
            return number
    return None


def _normal(name: str) -> str:
    """A file name as a tired person means it: any case, copies and extra extensions removed,
    spaces and hyphens as underscores (`Manual-Gradient (1).py.txt` -> `manual_gradient`)."""
    name = name.lower()
    name = re.sub(r"(\.(txt|py|ipynb|bak|orig|copy))+$", "", name)
    name = re.sub(r"\s*\(\d+\)|\s*-\s*(copy|salinan)(\s*\d+)?|^(copy of|salinan)\s+", "", name)
    return re.sub(r"[\s\-.]+", "_", name.strip()).strip("_")


NEAR_SCAN = 5000
"""Entries looked at when searching for a near-miss name (a huge folder is not walked whole)."""


def near_misses(directory: Path, filename: str, limit: int = 5) -> list[str]:
    """Files in the submission whose names look like a slip for `filename` (another case,
    a space or hyphen, a browser's " (1)", a `.py.txt`, a letter or two off), relative to
    the directory; the exact name itself is never among them."""
    directory, want = Path(directory), _normal(filename)
    found, seen = [], 0
    for top, dirs, files in os.walk(directory, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            seen += 1
            if seen > NEAR_SCAN or len(found) >= limit:
                return found
            if name == filename:
                continue
            got = _normal(name)
            if got == want or (len(want) > 4 and difflib.SequenceMatcher(None, got, want)
                               .ratio() >= 0.85):
                found.append(os.path.relpath(os.path.join(top, name), directory))
    return found


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

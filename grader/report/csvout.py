"""The CSV gradebook: one row per submission, a column per exercise, then the total."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from grader.common.safetext import atomic_write
from grader.outcomes.results import SubmissionResult


def _num(x: float) -> str:
    return f"{x:g}"


FORMULA = ("=", "+", "-", "@", "\t", "\r")
"""How a cell a spreadsheet would read as a formula begins."""


def cell(text: str) -> str:
    """Text as a spreadsheet shows it: one that would start a formula (a submission named
    `=HYPERLINK(...)`) gets a leading apostrophe, as OWASP advises for CSV files."""
    return "'" + text if text.startswith(FORMULA) else text


def text(results: list[SubmissionResult], exercise_ids: list[str]) -> str:
    """Exercise columns in the given order; an exercise a result lacks is an empty cell."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["submission", *exercise_ids, "total", "max_score"])
    for r in results:
        scores = {e.id: _num(e.score) for e in r.exercises}
        out.writerow(
            [
                cell(r.submission),
                *(scores.get(i, "") for i in exercise_ids),
                _num(r.score),
                _num(r.max_score),
            ]
        )
    return buf.getvalue()


def write(path: Path, results: list[SubmissionResult], exercise_ids: list[str]) -> None:
    atomic_write(Path(path), text(results, exercise_ids), newline="")

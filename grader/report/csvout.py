"""The CSV gradebook: one row per submission, a column per exercise, then the total.

Every text cell goes through cell(), so that no name a spreadsheet would run as a formula is
written as one; numbers are written as numbers. It is the grader's only CSV writer: another one
would write its cells through cell() too."""

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
    `=HYPERLINK(...)`, or ` =1+1`, which some spreadsheets trim first) gets a leading
    apostrophe, as OWASP advises for CSV files."""
    return "'" + text if text.lstrip(" ").startswith(FORMULA) else text


def _cells(values) -> list[str]:
    """A row's cells: numbers as numbers (a negative score stays -1, a number), every text
    cell through cell()."""
    return [_num(v) if isinstance(v, (int, float)) else cell(str(v)) for v in values]


def text(results: list[SubmissionResult], exercise_ids: list[str], people=None) -> str:
    """Exercise columns in the given order; an exercise a result lacks is an empty cell. people
    (submission id -> grader.outcomes.roster.Person, batch --roster): three more columns, the
    student's name, email and LMS id."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    deadline = any(r.late is not None for r in results)  # batch --deadline: three more columns
    late_columns = ["commit", "late_commits", "late_penalty"] if deadline else []
    who = ["name", "email", "lms_id"] if people is not None else []
    out.writerow(_cells(["submission", *exercise_ids, "total", "max_score", *late_columns, *who]))
    for r in results:
        scores = {e.id: e.score for e in r.exercises}
        late = r.late or {}
        row = [r.submission, *(scores.get(i, "") for i in exercise_ids), r.score, r.max_score]
        if deadline:
            row += [late.get("commit", ""), late.get("later_commits", ""), late.get("penalty", "")]
        if people is not None:
            p = people.get(r.submission)
            row += [p.name, p.email, p.lms_id] if p else ["", "", ""]
        out.writerow(_cells(row))
    return buf.getvalue()


def write(
    path: Path, results: list[SubmissionResult], exercise_ids: list[str], people=None
) -> None:
    atomic_write(Path(path), text(results, exercise_ids, people), newline="")

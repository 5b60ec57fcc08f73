"""Grade exports a teacher imports into their learning management system: OUT/lms/.

One file per system, each a row per submission and a column per exercise (its score, bonus
points apart as in grades.csv; an exercise a result lacks is an empty cell), in the column
layout that system's own grade import reads:

- canvas.csv: Canvas's gradebook import (Grades > Import). Header `Student, ID, SIS User ID,
  SIS Login ID, Section`, then `<title> (<exercise id>)` per exercise; the second row is
  `Points Possible` with each exercise's maximum. Canvas requires the five identity columns
  in that order (a header with SIS User ID but without SIS Login ID is refused as an invalid
  header row). The student's identifier is in `Student`, the column Canvas matches by name
  when `ID` and the SIS columns are empty; those are left empty, never guessed, since a wrong
  login would match another student.
- moodle.csv: Moodle's "Import grades from CSV file". Header `Username, ID number, Email
  address`, then `<title> (<exercise id>)` per exercise; on import, map `Username` (or `Email
  address`) to the matching user field and each exercise column to a grade item.
- google_classroom.csv: `Email Address, First Name, Last Name, Student`, then `<title>
  (<exercise id>)` per exercise, as Classroom's grade sheets name their columns.

A submission is known by its folder's name; a GitHub Classroom clone is named
`<assignment>-<login>` (grader.batch.classroom), so the assignment's prefix is stripped and the
login is the identifier. Without a roster, `Email address` / `Email Address` is filled only where
the identifier is an email address (a folder named so). With a roster (grader.outcomes.roster), the
student's row takes its name (Canvas's `Student`, Classroom's first and last name), its LMS id
(Canvas's `SIS User ID`, Moodle's `ID number`) and its email (Canvas's `SIS Login ID`, Moodle's
and Classroom's email columns): never guessed, only copied from the roster.

Each file has a twin with one grade column, the total (`canvas_total.csv`, ...), for a course
that keeps the assignment as one grade item instead of one per exercise. Every text cell goes through grader.report.csvout.cell,
so that no name a spreadsheet would run as a formula is written as one; scores are numbers.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.common.safetext import atomic_write
from grader.outcomes.results import SubmissionResult
from grader.outcomes.roster import Person
from grader.report import csvout

FOLDER = "lms"
CANVAS, MOODLE, CLASSROOM = "canvas.csv", "moodle.csv", "google_classroom.csv"
CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS = "Points Possible"
MOODLE_IDENTITY = ["Username", "ID number", "Email address"]
CLASSROOM_IDENTITY = ["Email Address", "First Name", "Last Name", "Student"]

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_LOGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(~\d+)?$")
"""What may follow an inferred assignment prefix: a GitHub login or team name (batch adds ~N
to a name that reads like another)."""


def student(submission: str, assignment: str | None = None) -> str:
    """The student's identifier: the submission's name without `<assignment>-` in front."""
    prefix = f"{assignment}-" if assignment else ""
    if prefix and submission.startswith(prefix) and len(submission) > len(prefix):
        return submission[len(prefix) :]
    return submission


def infer_assignment(names: Sequence[str]) -> str | None:
    """The GitHub Classroom assignment all these names share as `<assignment>-<login>`, or
    None: at least two names, a common prefix up to a `-`, and a login-like rest in each."""
    if len(names) < 2:
        return None
    common = os.path.commonprefix(list(names))
    cut = common.rfind("-")
    if cut <= 0:
        return None
    prefix = common[:cut]
    if all(_LOGIN.match(n[cut + 1 :]) for n in names):
        return prefix
    return None


def _assignment(results: Sequence[SubmissionResult], assignment: str | None) -> str | None:
    if assignment is not None:
        return assignment or None
    return infer_assignment([r.submission for r in results])


def people(results: Sequence[SubmissionResult], roster, assignment: str | None = None):
    """The roster matched to the results (grader.outcomes.roster.Match), each submission by its
    login as this module reads it (`<assignment>-` stripped, inferred where not given)."""
    from grader.outcomes.roster import match

    slug = _assignment(results, assignment)
    return match(roster, [r.submission for r in results], lambda sid: student(sid, slug))


def _columns(results: Sequence[SubmissionResult], exercises: Sequence[str], lang: str):
    """Per exercise id (in the given order): its column title and its maximum score."""
    titles: dict[str, str] = {}
    maxima: dict[str, float] = {}
    for r in results:
        for e in r.exercises:
            titles.setdefault(e.id, e.title.get(lang))
            maxima[e.id] = max(maxima.get(e.id, 0.0), e.max_score)
    heads = [f"{titles.get(i, i)} ({i})" for i in exercises]
    return heads, [maxima.get(i, "") for i in exercises]


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else ""


def _csv(rows: list[list[str]]) -> str:
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerows(rows)
    return buf.getvalue()


def _rows(results, exercises, assignment, identity, people, total):
    """A row per submission: identity(identifier, roster entry) then the scores (or the total)."""
    for r in results:
        scores = {e.id: e.score for e in r.exercises}
        who = student(r.submission, assignment)
        cells = [csvout.cell(x) for x in identity(who, people.get(r.submission))]
        if total:
            yield cells + [_num(round(r.score, 6))]
        else:
            yield cells + [_num(scores.get(i, "")) for i in exercises]


def _email(who: str, person: Person | None = None) -> str:
    if person is not None and person.email:
        return person.email
    return who if _EMAIL.match(who) else ""


def _names(person: Person | None) -> list[str]:
    """First and last name from the roster's name (the last word is the last name)."""
    if person is None or not person.name.strip():
        return ["", ""]
    first, _, last = person.name.strip().rpartition(" ")
    return [first, last] if first else [last, ""]


def _canvas(who: str, person: Person | None) -> list[str]:
    if person is None:
        return [who, "", "", "", ""]
    return [person.name or who, "", person.lms_id, person.email, ""]


def _moodle(who: str, person: Person | None) -> list[str]:
    return [who, person.lms_id if person else "", _email(who, person)]


def _classroom(who: str, person: Person | None) -> list[str]:
    return [_email(who, person), *_names(person), who]


@dataclass(frozen=True)
class Format:
    """One LMS's grade import: its identity columns, how a student fills them, and whether a
    row of points possible follows the header (Canvas)."""

    identity: tuple[str, ...]
    who: Callable[[str, Person | None], list[str]]
    points_row: str | None = None


FORMATS = {
    "canvas": Format(tuple(CANVAS_IDENTITY), _canvas, CANVAS_POINTS),
    "moodle": Format(tuple(MOODLE_IDENTITY), _moodle),
    "classroom": Format(tuple(CLASSROOM_IDENTITY), _classroom),
}
TOTAL = {"id": "Nilai total", "en": "Total"}
"""The single grade column's title, followed by the assignment where it is known."""


def export_text(
    fmt: Format,
    results: Sequence[SubmissionResult],
    exercises: Sequence[str],
    lang: str,
    *,
    assignment: str | None = None,
    people: Mapping[str, Person] | None = None,
    total: bool = False,
) -> str:
    """The grades as `fmt`'s CSV: its identity columns, then a column per exercise (or, with
    total, one column: each submission's total after any late penalty). people: submission id
    -> its roster entry (grader.outcomes.roster.match, with people()'s student)."""
    heads, maxima = _columns(results, exercises, lang)
    slug = _assignment(results, assignment)
    if total:
        heads = [f"{TOTAL[lang]} ({slug})" if slug else TOTAL[lang]]
        maxima = [max((r.max_score for r in results), default="")]
    rows = [[csvout.cell(h) for h in [*fmt.identity, *heads]]]
    if fmt.points_row is not None:
        blanks = [""] * (len(fmt.identity) - 1)
        rows.append([fmt.points_row, *blanks] + [_num(m) for m in maxima])
    rows += _rows(results, exercises, slug, fmt.who, people or {}, total)
    return _csv(rows)


def canvas_text(results, exercises, lang, **options) -> str:
    return export_text(FORMATS["canvas"], results, exercises, lang, **options)


def moodle_text(results, exercises, lang, **options) -> str:
    return export_text(FORMATS["moodle"], results, exercises, lang, **options)


def classroom_text(results, exercises, lang, **options) -> str:
    return export_text(FORMATS["classroom"], results, exercises, lang, **options)


def write_all(
    out: Path,
    results: Sequence[SubmissionResult],
    exercises_order: Sequence[str],
    lang: str,
    *,
    assignment: str | None = None,
    people: Mapping[str, Person] | None = None,
) -> list[Path]:
    """Write OUT/lms/canvas.csv, moodle.csv and google_classroom.csv, and each one's twin with
    the total alone (canvas_total.csv, ...); returns their paths. people: see export_text().

    exercises_order: the exercise ids, one column each, in this order (manifest.exercises).
    assignment: the GitHub Classroom assignment (the `<assignment>` of `<assignment>-submissions`)
    whose `<assignment>-` prefix is stripped from every submission's name; "" strips nothing;
    None infers it from the names (infer_assignment). A run and the `merge` of its shards write
    the same files only when both pass the same value (the names alone, or one recorded in the
    manifest).
    """
    folder = Path(out) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for total in (False, True):
        for name, make in (
            (CANVAS, canvas_text),
            (MOODLE, moodle_text),
            (CLASSROOM, classroom_text),
        ):
            path = folder / (name.replace(".csv", "_total.csv") if total else name)
            text = make(
                results, exercises_order, lang, assignment=assignment, people=people, total=total
            )
            atomic_write(path, text, newline="")
            written.append(path)
    return written

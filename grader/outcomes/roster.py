"""A class roster (`batch --roster FILE`, `merge --roster FILE`): who the students are, so that
every output can name them and the LMS exports can fill the identifiers their imports match.

Two CSV layouts are read, told apart by their header (case and spaces aside):

- GitHub Classroom's roster export: `identifier, github_username, github_id, name`. The
  identifier is what the teacher typed into Classroom's roster: an email address is read as the
  student's email, anything else as their LMS id (a student number, an SIS id).
- A plain CSV: `login` (or `github_username`, `username`), `name`, `email`, and an LMS id in a
  column named `lms_id`, `lms id`, `sis_id`, `id_number`, `id number` or `student_id`.

A submission matches the entry whose login equals its student identifier (the caller's
`student`: grader.report.classview.lms.student, `<assignment>-<login>` without the assignment),
case aside.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.common.errors import GraderError

MAX_BYTES = 5_000_000
"""A roster larger than this is refused (a class's roster is a few kilobytes)."""
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_LOGIN = ("login", "github_username", "username", "github username")
_LMS_ID = ("lms_id", "lms id", "sis_id", "sis id", "id_number", "id number", "student_id")


@dataclass(frozen=True)
class Person:
    """One student of the roster."""

    login: str
    """The GitHub login (the `<login>` of a Classroom repository `<assignment>-<login>`)."""
    name: str = ""
    email: str = ""
    lms_id: str = ""
    """The learning management system's id (Canvas's SIS User ID, Moodle's ID number)."""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Roster:
    people: tuple[Person, ...]
    source: str = ""
    """The file it was read from, for messages."""

    def find(self, login: str) -> Person | None:
        key = login.casefold()
        return next((p for p in self.people if p.login.casefold() == key), None)


@dataclass(frozen=True)
class Match:
    """The class's submissions against the roster."""

    people: dict[str, Person]
    """Submission id -> its student, for every submission the roster names."""
    unlisted: list[str]
    """Submissions whose student the roster does not name."""
    absent: list[Person]
    """Students of the roster with no submission."""


def _column(header: dict[str, str], names: Sequence[str]) -> str | None:
    return next((header[n] for n in names if n in header), None)


def parse(text: str, source: str = "roster") -> Roster:
    """The roster in `text` (see the module's docstring); a GraderError names what is wrong."""
    rows = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = {(h or "").strip().casefold(): h for h in rows.fieldnames or []}
    login = _column(header, _LOGIN)
    if login is None:
        raise GraderError(
            f"{source}: no login column; expected GitHub Classroom's roster (identifier, "
            "github_username, github_id, name) or a CSV with login, name, email and lms_id "
            f"columns, got {', '.join(repr(h) for h in header.values()) or 'an empty file'}"
        )
    name, email = _column(header, ("name",)), _column(header, ("email", "email address"))
    lms_id, identifier = _column(header, _LMS_ID), _column(header, ("identifier",))
    people, seen = [], set()
    for row in rows:
        who = (row.get(login) or "").strip()
        if not who:  # Classroom lists roster entries not yet linked to an account this way
            continue
        if who.casefold() in seen:
            raise GraderError(f"{source}: login {who!r} appears twice; give each student once")
        seen.add(who.casefold())
        found = {
            "email": (row.get(email) or "").strip() if email else "",
            "lms_id": (row.get(lms_id) or "").strip() if lms_id else "",
        }
        ident = (row.get(identifier) or "").strip() if identifier else ""
        if ident:
            key = "email" if _EMAIL.match(ident) else "lms_id"
            found[key] = found[key] or ident
        people.append(Person(who, (row.get(name) or "").strip() if name else "", **found))
    return Roster(tuple(people), source)


def read(path: Path) -> Roster:
    path = Path(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as error:
        raise GraderError(f"--roster {path}: cannot be read ({error.strerror})") from None
    if len(data) > MAX_BYTES:
        raise GraderError(f"--roster {path}: larger than {MAX_BYTES} bytes; is it the roster?")
    return parse(data.decode("utf-8", errors="replace"), str(path))


def match(
    roster: Roster, submissions: Sequence[str], student: Callable[[str], str] = str
) -> Match:
    """Each submission's student by login: student(submission id) is the login it names."""
    people, unlisted = {}, []
    for sid in submissions:
        found = roster.find(student(sid)) or roster.find(sid)
        if found is None:
            unlisted.append(sid)
        else:
            people[sid] = found
    matched = {p.login for p in people.values()}
    return Match(people, unlisted, [p for p in roster.people if p.login not in matched])

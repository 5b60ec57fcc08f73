"""Deadlines from a submission's git history: which commit to grade, and how late the rest is.

A submission that is a git repository (GitHub Classroom's clones are) is graded as of its last
commit made at or before the deadline, by committer date (a clone holds no push events, so the
commit's own date is what can be seen; a student can forge it, as with any clock they control).
The repository is never changed, and nothing in it is obeyed: its objects are read as data
(grader.batch.gitread; no git command runs) and the chosen commit's files written into a folder
of the grader's. A repository that cannot be read (Unreadable: a broken object, an impossible
name, a date out of range, a budget exceeded, a `.git` file or link) is graded 0, saying why
(unread()); never from its working tree. A submission that is not a repository is graded as it
is, with no lateness.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from grader.batch.gitread import Repository
from grader.batch.gitread import Unreadable as Unreadable  # batch.run catches it
from grader.common.errors import GraderError
from grader.outcomes.results import SubmissionResult
from grader.report import statuswords

POLICIES = ("none", "penalty", "latest")
"""none: grade the last commit before the deadline (later ones are only reported); penalty:
grade the latest commit, less `per_day` of its score per day (or part) after the deadline;
latest: grade the latest commit, flagged late."""


@dataclass(frozen=True)
class Policy:
    kind: str = "none"
    per_day: float = 0.0
    """penalty: the share of the score taken per day (or part of a day) late, e.g. 0.1."""


@dataclass(frozen=True)
class Lateness:
    """What a repository's history says against the deadline."""

    commit: str
    """The commit graded (its full hash)."""
    committed: str
    """Its committer date, ISO 8601."""
    later: int
    """Commits made after the deadline."""
    after: float | None
    """Seconds from the deadline to the latest commit, when that one is late."""
    graded_late: bool
    """The commit graded was made after the deadline (policy penalty or latest, or no commit
    before it)."""
    penalty: float = 0.0
    """The share of the score taken (policy penalty)."""
    unreadable: str | None = None
    """Why the repository could not be read (then it is graded 0; commit: "")."""

    def as_dict(self) -> dict:
        out = {
            "commit": self.commit,
            "committed": self.committed,
            "later_commits": self.later,
            "late_seconds": self.after,
            "graded_late": self.graded_late,
            "penalty": self.penalty,
        }
        if self.unreadable is not None:
            out["unreadable"] = self.unreadable
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Lateness:
        return cls(
            commit=str(data["commit"]),
            committed=str(data["committed"]),
            later=int(data["later_commits"]),
            after=None if data.get("late_seconds") is None else float(data["late_seconds"]),
            graded_late=bool(data.get("graded_late")),
            penalty=float(data.get("penalty") or 0.0),
            unreadable=None if data.get("unreadable") is None else str(data["unreadable"]),
        )

    @classmethod
    def unread(cls, why: str) -> Lateness:
        """The record of a repository that could not be read."""
        return cls("", "", 0, None, graded_late=False, unreadable=why)

    def words(self, lang: str) -> str:
        """One line for feedback: which commit, and how late the rest is."""
        return statuswords.late_words(self.as_dict(), lang)


@dataclass(frozen=True)
class Deadlines:
    """The course's deadline, and those of exercises due on other days."""

    default: datetime | None = None
    by_exercise: tuple[tuple[str, datetime], ...] = ()

    def of(self, exercise: str) -> datetime | None:
        return dict(self.by_exercise).get(exercise, self.default)

    @classmethod
    def read(cls, value) -> Deadlines | None:
        """From --deadline or config.yaml's `deadline:` (a time, or a mapping of exercise ids,
        and `default`, to times); None when there is none."""
        if value is None:
            return None
        if isinstance(value, dict):
            default = value.get("default")
            return cls(
                default=parse(default) if default is not None else None,
                by_exercise=tuple(
                    sorted((k, parse(v)) for k, v in value.items() if k != "default")
                ),
            )
        return cls(default=parse(value))


def parse(text: str) -> datetime:
    """An ISO 8601 deadline with its UTC offset (2026-12-10T23:59+07:00)."""
    try:
        when = datetime.fromisoformat(str(text).strip())
    except ValueError:
        raise GraderError(
            f"deadline {text!r}: expected a date and time with its offset, such as "
            f"2026-12-10T23:59+07:00"
        ) from None
    if when.tzinfo is None:
        raise GraderError(
            f"deadline {text!r} has no UTC offset; write it as in 2026-12-10T23:59+07:00 "
            f"(the offset of the course's time zone)"
        )
    return when


def is_repository(path: Path) -> bool:
    """Whether the submission has a `.git` (a folder, or a file or link that makes it
    Unreadable: never graded from its working tree)."""
    return os.path.lexists(Path(path) / ".git")


def _open(repo: Path | Repository) -> Repository:
    return repo if isinstance(repo, Repository) else Repository(repo)


def history(repo: Path | Repository) -> list[tuple[str, datetime]]:
    """(hash, committer date) of every commit reachable from HEAD, newest first."""
    return [(c.sha, c.when) for c in _open(repo).history()]


def judge(
    repo: Path | Repository, deadline: datetime, policy: Policy = Policy()
) -> Lateness | None:
    """The commit to grade and the lateness, or None when the repository has no commit."""
    commits = history(repo)
    if not commits:
        return None
    on_time = [c for c in commits if c[1] <= deadline]
    late = [c for c in commits if c[1] > deadline]
    after = (commits[0][1] - deadline).total_seconds() if late else None
    if policy.kind == "none" and on_time:
        sha, when = on_time[0]
        return Lateness(sha, when.isoformat(), len(late), after, graded_late=False)
    sha, when = commits[0]  # the latest: by policy, or nothing was made in time
    days = math.ceil(max((when - deadline) / timedelta(days=1), 0))
    penalty = min(policy.per_day * days, 1.0) if policy.kind == "penalty" else 0.0
    return Lateness(
        sha, when.isoformat(), len(late), after, graded_late=bool(late), penalty=penalty
    )


def export(repo: Path | Repository, commit: str, dest: Path) -> None:
    """The files of `commit` into dest, a new folder (grader.batch.gitread: the files grading
    reads, within budgets; Unreadable where that cannot be done), the repository untouched."""
    _open(repo).export(commit, dest)


def unread(result: SubmissionResult, why: str) -> SubmissionResult:
    """A submission's result as one whose repository could not be read: every exercise an
    error with that reason, every check 0 points."""
    from grader.checks.messages import both  # imports torch, which a merge job need not install

    message = both(
        "Repositorimu tidak dapat dibaca: {d}. Nilainya 0; perbaiki repositorinya, lalu minta "
        "pengajarmu menilainya ulang.",
        "Your repository could not be read: {d}. It scores 0; repair it, then ask your teacher "
        "to grade it again.",
        d=why,
    )
    exercises = [
        replace(
            e,
            status="error",
            message=message,
            checks=[replace(c, status="error", points=0.0) for c in e.checks],
        )
        for e in result.exercises
    ]
    return replace(result, exercises=exercises)

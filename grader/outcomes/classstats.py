"""Numbers about a whole class, derived from its results: what the class summary reports.

The score distribution and, per check, how many of the submissions that attempted its exercise
passed it, lowest pass rate first, so a teacher sees which idea the class missed; those that did
not attempt it (no file, or the starter as handed out) are counted apart.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from grader.outcomes.results import SubmissionResult
from grader.specs.model import Text

BUCKETS = 10
"""The distribution's bins: [0, 10%), [10%, 20%), ... [90%, 100%), then full marks apart."""


@dataclass
class CheckStats:
    exercise: str
    check: str
    title: Text
    kind: str
    hidden: bool
    bonus: bool
    statuses: Counter = field(default_factory=Counter)
    """Submissions that attempted the exercise, per check status (passed, failed, error,
    timeout, skipped)."""

    @property
    def total(self) -> int:
        return sum(self.statuses.values())

    @property
    def passed(self) -> int:
        return self.statuses["passed"]

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


@dataclass
class ExerciseStats:
    id: str
    title: Text
    max_score: float
    scores: list[float] = field(default_factory=list)
    """The scores of the submissions that attempted the exercise."""
    statuses: Counter = field(default_factory=Counter)
    """Submissions that attempted it, per exercise status (passed, failed, error, timeout)."""
    not_attempted: Counter = field(default_factory=Counter)
    """Submissions that did not: missing (no file) or untouched (the starter, or empty)."""

    @property
    def attempted(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def bins(self) -> list[tuple[float, float, int]]:
        """The attempts' scores in EXERCISE_BINS bins of the maximum, then full marks apart:
        (low %, high %, submissions)."""
        counts = [0] * (EXERCISE_BINS + 1)
        for score in self.scores:
            if self.max_score > 0 and score >= self.max_score:
                counts[EXERCISE_BINS] += 1
            else:
                share = score / self.max_score if self.max_score > 0 else 0.0
                counts[min(int(EXERCISE_BINS * share), EXERCISE_BINS - 1)] += 1
        width = 100 / EXERCISE_BINS
        out = [(i * width, (i + 1) * width, counts[i]) for i in range(EXERCISE_BINS)]
        return out + [(100.0, 100.0, counts[EXERCISE_BINS])]


EXERCISE_BINS = 4
"""An exercise's distribution: [0, 25%), ... [75%, 100%), then full marks apart."""


@dataclass(frozen=True)
class Student:
    """One submission as a row of the class's table."""

    submission: str
    name: str
    """The roster's name, else the submission's login (its id without the assignment)."""
    score: float
    max_score: float
    exercises: dict[str, float]
    """Exercise id -> score (an exercise the result lacks is absent)."""
    late: dict | None
    """SubmissionResult.late."""


@dataclass(frozen=True)
class Pushed:
    """When a submission's graded commit was made, against the deadline."""

    submission: str
    committed: datetime
    """The graded commit's committer date."""
    latest: datetime | None
    """The latest commit's date, where it is after the deadline (deadline + late_seconds)."""
    late: bool
    """Graded late, or with commits after the deadline."""


def students(
    results: list[SubmissionResult], names: Mapping[str, str] | None = None
) -> list[Student]:
    """A row per submission, by name (case aside), then by id. names: submission id -> the name
    to show (a roster's name, or the login)."""
    names = names or {}
    rows = [
        Student(
            r.submission,
            names.get(r.submission) or r.submission,
            r.score,
            r.max_score,
            {e.id: e.score for e in r.exercises},
            r.late,
        )
        for r in results
    ]
    return sorted(rows, key=lambda s: (s.name.casefold(), s.submission))


def _when(text) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        return None


def pushes(results: list[SubmissionResult], deadline: datetime | None) -> list[Pushed]:
    """Per submission graded against a deadline, its graded commit's date and, where it has
    later commits and the deadline is known, its latest commit's; by commit date."""
    out = []
    for r in results:
        late = r.late or {}
        committed = _when(late.get("committed"))
        if committed is None:
            continue
        after = late.get("late_seconds")
        latest = None
        if deadline is not None and after is not None:
            latest = deadline + timedelta(seconds=float(after))
        flagged = bool(late.get("later_commits") or late.get("graded_late"))
        out.append(Pushed(r.submission, committed, latest, flagged))
    return sorted(out, key=lambda p: (p.committed, p.submission))


@dataclass
class ClassStats:
    submissions: int
    max_score: float
    scores: list[float]
    """Every submission's total, in submission order."""
    full_marks: int
    distribution: list[tuple[float, float, int]]
    """(low %, high %, submissions) per bin; the last bin is exactly 100% (full marks)."""
    exercises: list[ExerciseStats]
    checks: list[CheckStats]
    """Lowest pass rate first; ties in the course's order; checks nobody attempted last."""
    late: list[tuple[str, dict]] = field(default_factory=list)
    """Submissions graded against a deadline that have commits after it, were graded late, or
    whose repository could not be read: (id, SubmissionResult.late)."""
    overloaded: list[str] = field(default_factory=list)
    """Submissions with a check the machine was too busy to grade (cause "overloaded"), even
    after batch graded them once more: their scores are not final."""

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0


def _full(r: SubmissionResult) -> bool:
    return r.max_score > 0 and r.score >= r.max_score


def _bin(r: SubmissionResult) -> int:
    if _full(r):
        return BUCKETS
    return min(int(BUCKETS * r.score / r.max_score), BUCKETS - 1) if r.max_score > 0 else 0


def compute(results: list[SubmissionResult], attempt=None) -> ClassStats:
    """attempt(submission id, exercise id) says attempted, missing or untouched (default: by
    the exercise's status, missing or not); exercise and check rates count attempts only."""
    exercises: dict[str, ExerciseStats] = {}
    checks: dict[tuple[str, str], CheckStats] = {}
    counts = [0] * (BUCKETS + 1)
    for r in results:
        counts[_bin(r)] += 1
        for e in r.exercises:
            ex = exercises.setdefault(e.id, ExerciseStats(e.id, e.title, e.max_score))
            how = (
                "missing"
                if e.status == "missing"
                else (attempt(r.submission, e.id) if attempt else "attempted")
            )
            for c in e.checks:  # every check is listed, even one nobody attempted
                checks.setdefault(
                    (e.id, c.id), CheckStats(e.id, c.id, c.title, c.kind, c.hidden, c.bonus)
                )
            if how != "attempted":
                ex.not_attempted[how] += 1
                continue
            ex.scores.append(e.score)
            ex.statuses[e.status] += 1
            for c in e.checks:
                checks[(e.id, c.id)].statuses[c.status] += 1
    order = {key: i for i, key in enumerate(checks)}
    ranked = sorted(
        checks.values(),  # nobody attempted: no rate, listed last
        key=lambda c: (not c.total, c.rate, order[(c.exercise, c.check)]),
    )
    width = 100 / BUCKETS
    distribution = [(i * width, (i + 1) * width, counts[i]) for i in range(BUCKETS)]
    distribution.append((100.0, 100.0, counts[BUCKETS]))
    max_score = max((r.max_score for r in results), default=0.0)
    return ClassStats(
        submissions=len(results),
        max_score=max_score,
        scores=[r.score for r in results],
        full_marks=sum(_full(r) for r in results),
        distribution=distribution,
        exercises=list(exercises.values()),
        checks=ranked,
        late=[
            (r.submission, r.late)
            for r in results
            if r.late
            and (
                r.late.get("later_commits")
                or r.late.get("graded_late")
                or r.late.get("unreadable")
            )
        ],
        overloaded=[r.submission for r in results if overloaded(r)],
    )


def overloaded(result: SubmissionResult) -> bool:
    """Whether some check of the submission could not be graded because the machine was
    overloaded (grader.checks.messages.overloaded): not the student's doing, grade again."""
    return any(c.cause == "overloaded" for e in result.exercises for c in e.checks)

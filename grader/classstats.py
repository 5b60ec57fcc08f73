"""Numbers about a whole class, derived from its results: what the class summary reports.

The score distribution and, per check, how many submissions passed it, lowest pass rate first,
so a teacher sees which idea the class missed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from .results import SubmissionResult
from .spec import Text

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
    """Submissions per check status (passed, failed, error, timeout, skipped)."""

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
    statuses: Counter = field(default_factory=Counter)
    """Submissions per exercise status (passed, failed, error, timeout, missing)."""

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0


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
    """Lowest pass rate first; ties in the course's order."""

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


def compute(results: list[SubmissionResult]) -> ClassStats:
    exercises: dict[str, ExerciseStats] = {}
    checks: dict[tuple[str, str], CheckStats] = {}
    counts = [0] * (BUCKETS + 1)
    for r in results:
        counts[_bin(r)] += 1
        for e in r.exercises:
            ex = exercises.setdefault(e.id, ExerciseStats(e.id, e.title, e.max_score))
            ex.scores.append(e.score)
            ex.statuses[e.status] += 1
            for c in e.checks:
                key = (e.id, c.id)
                row = checks.setdefault(key, CheckStats(e.id, c.id, c.title, c.kind, c.hidden,
                                                        c.bonus))
                row.statuses[c.status] += 1
    order = {key: i for i, key in enumerate(checks)}
    ranked = sorted(checks.values(), key=lambda c: (c.rate, order[(c.exercise, c.check)]))
    width = 100 / BUCKETS
    distribution = [(i * width, (i + 1) * width, counts[i]) for i in range(BUCKETS)]
    distribution.append((100.0, 100.0, counts[BUCKETS]))
    max_score = max((r.max_score for r in results), default=0.0)
    return ClassStats(submissions=len(results), max_score=max_score,
                      scores=[r.score for r in results],
                      full_marks=sum(_full(r) for r in results),
                      distribution=distribution, exercises=list(exercises.values()),
                      checks=ranked)

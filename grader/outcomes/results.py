"""The result model: plain data that every reporter (terminal, JSON, CSV, JUnit) reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.specs.model import Text

CHECK_STATUSES = ("passed", "failed", "error", "timeout", "skipped")
EXERCISE_STATUSES = ("passed", "failed", "error", "timeout", "missing")
PUBLIC_SEEDS = ("seed", "recorded")
"""Seed sources a student may see (grading.environment); any other is the teacher's secret."""


def shown_environment(environment: dict | None) -> dict:
    """A result's environment as a student may see it: a grading seed is left out."""
    env = dict(environment or {})
    if env.get("seed_source", "seed") not in PUBLIC_SEEDS:
        env.pop("seed", None)
    return env


@dataclass
class CheckResult:
    id: str
    title: Text
    kind: str
    status: str
    points: float
    max_points: float
    message: Text | None = None
    counterexample: str | None = None
    hint: Text | None = None
    traceback: list[str] = field(default_factory=list)
    hidden: bool = False
    bonus: bool = False
    cause: str | None = None
    """The same key on every check one failure blocks (see checks.base.Verdict.cause)."""
    mistake: str | None = None
    """The named mistake's id (checks.base.Mistake) where the grader named one."""
    mistake_title: Text | None = None
    """That mistake in a few words, as a class report lists it."""
    output: str | None = None
    """What the student's code printed during the failing call (capped), if anything."""
    output_cut: int = 0
    """Characters of that output left out (beyond the cap)."""
    helpful_hints: tuple[int, ...] = ()
    """Numbers (1-based) of the exercise's hints that help with this check."""
    held_hint: Text | None = None
    """The check's hint (the formula or recipe) that the feedback level keeps back
    (grader.outcomes.levels): shown on request (`grader hint ID`) or after enough failed runs,
    never in the report meanwhile."""
    shrink_cut: bool = False
    """The counterexample is the smallest failure found within `batch`'s shrink budget
    (config.yaml shrink_budget), not hypothesis's fully shrunk one; the verdict is the same."""


@dataclass
class ExerciseResult:
    id: str
    title: Text
    status: str
    checks: list[CheckResult]
    message: Text | None = None
    """Why the whole exercise could not be graded (missing file, import failed, ...)."""
    traceback: list[str] = field(default_factory=list)
    file: str | None = None
    seconds: float = 0.0
    hidden_checks: int = 0
    """Checks that only run in batch mode (not included in this result)."""
    untouched: bool = False
    """The file graded is the starter as released (grader.submissions.answer): not started."""
    ignored: list[tuple[str, str]] = field(default_factory=list)
    """The other files named for the exercise, not graded, each with why
    (grader.submissions.answer: "starter", as released; "both", a notebook changed beside a
    changed .py, which is graded)."""

    @property
    def score(self) -> float:
        return sum(c.points for c in self.checks if not c.bonus)

    @property
    def max_score(self) -> float:
        return sum(c.max_points for c in self.checks if not c.bonus)

    @property
    def bonus_score(self) -> float:
        return sum(c.points for c in self.checks if c.bonus)

    @property
    def bonus_max(self) -> float:
        return sum(c.max_points for c in self.checks if c.bonus)


@dataclass
class SubmissionResult:
    submission: str
    exercises: list[ExerciseResult]
    environment: dict
    late: dict | None = None
    """Against a deadline (batch --deadline), for a submission that is a git repository: the
    commit graded, its date, later commits, how late, the penalty (grader.batch.deadline
    .Lateness.as_dict); None without a deadline or a repository."""

    @property
    def raw_score(self) -> float:
        """The points earned, before any late penalty."""
        return sum(e.score for e in self.exercises)

    @property
    def score(self) -> float:
        """The points earned, less the late penalty's share where one applies (each exercise's
        own where exercises have deadlines of their own)."""
        late = self.late or {}
        per = late.get("exercises") or {}
        total = 0.0
        for e in self.exercises:
            penalty = float((per.get(e.id) or late).get("penalty") or 0.0)
            total += e.score * (1.0 - penalty) if penalty else e.score
        return total

    @property
    def max_score(self) -> float:
        return sum(e.max_score for e in self.exercises)

    @property
    def full_marks(self) -> bool:
        return all(e.status == "passed" for e in self.exercises)

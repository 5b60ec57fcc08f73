"""The course view: where a student stands in each exercise, and which one to work on next.

Data only; grader.report.course formats it. An exercise is done (full marks), not started (every
check that does not pass is blocked by a function that still raises NotImplementedError, as the
starters do), missing (no file), or in progress.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from grader.outcomes.results import ExerciseResult, SubmissionResult

STATES = ("done", "in_progress", "not_started", "missing")
UNWRITTEN = "raised:NotImplementedError:"
"""The cause prefix of a check blocked by a function the student has not written yet."""


def state(e: ExerciseResult) -> str:
    if e.status == "passed":
        return "done"
    if e.status == "missing":
        return "missing"
    if e.untouched:  # the starter as released, whatever its given code passes
        return "not_started"
    open_checks = [c for c in e.checks if c.status not in ("passed", "skipped")]
    if open_checks and all((c.cause or "").startswith(UNWRITTEN) for c in open_checks):
        return "not_started"
    return "in_progress"


def not_started(e: ExerciseResult, attempt: str | None = None) -> bool:
    """The student has not started this exercise: its visible checks say so as state() reads
    them (a class's hidden checks say nothing: their causes are concealed), and no hidden check
    passes; or `attempt` does (what a class's manifest knows from the file's hash,
    batch.files.Manifest.attempt: "untouched" is the starter as handed out, or an empty file).
    An exercise the grader could not grade (its message says why) is not said to be not
    started."""
    if e.status in ("passed", "missing") or e.message is not None:
        return False
    if attempt == "untouched" or e.untouched:
        return True
    if any(c.hidden and c.status == "passed" for c in e.checks):
        return False
    visible = replace(e, checks=[c for c in e.checks if not c.hidden])
    return state(visible) == "not_started"


def unwritten(e: ExerciseResult) -> list[str]:
    """The functions that still raise NotImplementedError, in the order of the checks."""
    names: list[str] = []
    for c in e.checks:
        if (c.cause or "").startswith(UNWRITTEN):
            name = c.cause[len(UNWRITTEN) :]
            if name not in names:
                names.append(name)
    return names


@dataclass
class Entry:
    result: ExerciseResult
    state: str
    file: str
    """Where the student's file is (or should be), as the student would type it."""
    failing: int
    """Checks (not bonus) that do not pass yet."""


@dataclass
class Course:
    entries: list[Entry]
    score: float
    max_score: float

    @property
    def next(self) -> Entry | None:
        """The first exercise that is not done, in course order."""
        return next((e for e in self.entries if e.state != "done"), None)

    @property
    def done(self) -> int:
        return sum(e.state == "done" for e in self.entries)


def _where(directory: Path, e: ExerciseResult, default_file: str) -> str:
    if e.file:
        return str(Path(directory) / e.file)
    if (Path(directory) / "exercises").is_dir():  # a working copy, exercises/ inside
        directory = Path(directory) / "exercises"
    return str(Path(directory) / e.id / default_file)


def view(result: SubmissionResult, directory: Path, files: dict[str, str] | None = None) -> Course:
    """The course from one grading of the working copy `directory`; files: exercise id -> the
    file name the spec asks for (for a missing file)."""
    files = files or {}
    entries = []
    for e in result.exercises:
        failing = sum(1 for c in e.checks if not c.bonus and c.status != "passed")
        entries.append(
            Entry(
                result=e,
                state=state(e),
                failing=failing,
                file=_where(directory, e, files.get(e.id, f"{e.id}.py")),
            )
        )
    return Course(entries=entries, score=result.score, max_score=result.max_score)

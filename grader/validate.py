"""`grader validate`: the self-audit of every exercise.

The answer key and every variant must get full marks; every mutant must lose points. The data
(Audit rows) is separate from the table the command line prints.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .config import Config
from .grading import grade_exercise
from .results import ExerciseResult
from .sandbox.client import Sandbox
from .spec import Exercise


@dataclass
class Trial:
    role: str
    """key, variant or mutant."""
    file: str
    result: ExerciseResult

    @property
    def ok(self) -> bool:
        full = self.result.status == "passed" and self.result.score == self.result.max_score
        return full if self.role in ("key", "variant") else self.result.score < self.result.max_score

    @property
    def caught_by(self) -> list[str]:
        return [c.id for c in self.result.checks if c.status != "passed"]


@dataclass
class Audit:
    exercise: Exercise
    trials: list[Trial] = field(default_factory=list)

    def count(self, role: str) -> tuple[int, int]:
        rows = [t for t in self.trials if t.role == role]
        return sum(t.ok for t in rows), len(rows)

    @property
    def ok(self) -> bool:
        variants, mutants = self.count("variant"), self.count("mutant")
        return all(t.ok for t in self.trials) and variants[1] >= 1 and mutants[1] >= 1


def _grade_file(exercise, file: Path, config, sandbox) -> ExerciseResult:
    tmp = Path(tempfile.mkdtemp(prefix="grader-validate-"))
    try:
        shutil.copyfile(file, tmp / exercise.file)
        return grade_exercise(exercise=exercise, submission_dir=tmp, config=config,
                              sandbox=sandbox, include_hidden=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def audit(*, exercise: Exercise, solutions: Path, config: Config, sandbox: Sandbox,
          on_trial=None) -> Audit:
    out = Audit(exercise)
    key = solutions / exercise.file
    plan = [("key", key)]
    plan += [("variant", p) for p in sorted((solutions / "variants" / exercise.id).glob("*.py"))]
    plan += [("mutant", p) for p in sorted((solutions / "mutants" / exercise.id).glob("*.py"))]
    for role, path in plan:
        if not path.exists():
            result = ExerciseResult(id=exercise.id, title=exercise.title, status="missing",
                                    checks=[])
        else:
            result = _grade_file(exercise, path, config, sandbox)
        trial = Trial(role, str(path.relative_to(solutions.parent)), result)
        out.trials.append(trial)
        if on_trial:
            on_trial(trial)
    return out


def miss_reason(trial: Trial, lang: str) -> str:
    """Why a trial missed, in one line per cause: the exercise's own message (a file that
    cannot be read or imported) and every check that did not pass; for a mutant, that nothing
    caught it."""
    r = trial.result
    if trial.role == "mutant":
        return ("got full marks: no check catches this mutant; add or tighten a check that "
                "tells it apart from the answer key")
    if r.status == "missing":
        return "file not found"
    reasons = []
    if r.message is not None:
        reasons.append(f"{r.status}: {r.message.get(lang)}")
    for c in r.checks:
        if c.status != "passed" and not c.bonus and not (r.message is not None
                                                         and c.message is None):
            text = c.message.get(lang) if c.message is not None else ""
            reasons.append(f"{c.id} {c.status}" + (f": {text}" if text else ""))
    return "; ".join(" ".join(x.split()) for x in reasons) or f"status {r.status}"

"""`grader draw`: write each exercise's examples into the course (grader.loader.committed).

The answer key is graded on the public seed with hidden checks included, from examples drawn
now (never from a committed file: those are what this writes), so that every check's examples
are drawn and the kinds remember their references on each of them. The data (Drawn rows) is
separate from what the command line prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.authoring.validate import grade_file
from grader.common.errors import GraderError
from grader.grading import examples
from grader.grading.grade import to_draw
from grader.loader import committed
from grader.loader.config import Config
from grader.sandbox.client import Sandbox
from grader.specs.model import Exercise


@dataclass
class Written:
    exercise: str
    path: Path
    checks: int
    examples: int
    changed: bool


def entries(exercise: Exercise, config: Config) -> dict[str, tuple]:
    """{committed key: (check, kind, count, seed)} of each check whose examples are drawn,
    hidden ones included (grade.to_draw: its example count and seed as grading takes them)."""
    return {
        committed.key(exercise, check, count, seed): (check, kind, count, seed)
        for _, check, kind, count, seed in to_draw([exercise], config, include_hidden=True)
    }


def missing(exercise: Exercise, config: Config) -> list[str]:
    """The ids of the checks whose examples the exercise's committed file does not hold (for
    this spec, these versions, the config's seed and count)."""
    if exercise.recorded is not None or not examples.enabled():
        return []
    return [
        check.id
        for check, _, count, seed in entries(exercise, config).values()
        if not committed.has(exercise, check, count, seed)
    ]


def fresh(*, exercise: Exercise, solutions: Path, config: Config, sandbox: Sandbox) -> dict:
    """The exercise's entries as `draw` writes them, drawn and computed now."""
    key = solutions / exercise.file
    if not key.is_file():
        raise GraderError(
            f"{key}: no answer key for {exercise.id}; `draw` grades it to compute the "
            "references it writes (give --solutions DIR)"
        )
    if not examples.enabled():
        raise GraderError("GRADER_REPLAY is off: there are no drawn examples to write")
    committed.turned_off(True)  # drawn now, never read from the file this writes
    examples.forget()  # (nor from what this process read of it)
    try:
        result = grade_file(exercise, key, config, sandbox)
        if result.score < result.max_score:
            failed = ", ".join(c.id for c in result.checks if c.status != "passed")
            raise GraderError(
                f"{key}: the answer key of {exercise.id} does not get full marks "
                f"({failed or result.status}); its references would be incomplete. Run "
                f"`python -m grader validate {exercise.id}` and fix it first"
            )
        out = {}
        for k, (check, kind, count, seed) in entries(exercise, config).items():
            drawn = examples.examples(exercise, check, kind, count, seed)
            out[k] = {"inputs": drawn.inputs, "memo": examples.keepable_memo(drawn)}
        return out
    finally:
        committed.turned_off(False)


def draw(*, exercise: Exercise, solutions: Path, config: Config, sandbox: Sandbox) -> Written:
    """Write the exercise's committed examples (unless the file holds them already)."""
    out = fresh(exercise=exercise, solutions=solutions, config=config, sandbox=sandbox)
    changed = committed.write(exercise, out)
    return Written(
        exercise.id,
        committed.path(exercise),
        len(out),
        sum(len(e["inputs"]) for e in out.values()),
        changed,
    )

"""Hints one at a time: which hints a student has seen, and how often each exercise failed.

The progress lives in a small JSON file in the working copy (STATE_FILE, ignored by git). A
hint marked `after_failures: N` in its spec opens only once the student's runs have failed that
exercise N times. The hints a run's feedback level kept back (grader.outcomes.levels: the recipe
of each failed check) are remembered too, and `grader hint` shows them first, one at a time; they
show in the report itself once the exercise has failed `hints_after` runs. A broken or foreign
state file is treated as empty, never as an error: it only holds hint progress, never a grade.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from grader.outcomes import levels
from grader.specs.model import Exercise, Hint, Text
from grader.submissions import files as submission

STATE_FILE = ".grader-state.json"
TEMP_SUFFIX = ".tmp"
"""Progress.save writes STATE_FILE + TEMP_SUFFIX first, then renames it."""
WRITTEN = (STATE_FILE, STATE_FILE + TEMP_SUFFIX)
"""What the CLI may leave in the working copy: the release's .gitignore names each."""
MAX_STATE_BYTES = 2**20
"""A state file read is at most this large (it holds a few numbers and hints per exercise)."""
MAX_HELD = 20
"""Kept-back hints remembered per exercise (one per failed check at most)."""


@dataclass
class Step:
    """What `grader hint` shows next."""

    number: int
    """1-based number of the hint (0 when there are no hints)."""
    total: int
    hint: Hint | None
    """None when the next hint is still locked or there are no hints."""
    locked_until: int = 0
    """Failed runs the next hint needs (when locked)."""
    failures: int = 0
    repeat: bool = False
    """Every hint was shown already: this is the last one again."""


class Progress:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.data = {"shown": {}, "failures": {}, "held_shown": {}}
        self.held: dict[str, list[Text]] = {}
        """The hints the last run kept back, per exercise."""
        try:
            # capped and never a link or a FIFO: the working copy is the student's
            raw = json.loads(submission.read_capped(self.path, MAX_STATE_BYTES).decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return
        if isinstance(raw, dict):
            for key in self.data:
                if isinstance(raw.get(key), dict):
                    self.data[key] = {
                        str(k): int(v)
                        for k, v in raw[key].items()
                        if isinstance(v, int) and not isinstance(v, bool)
                    }
            if isinstance(raw.get("held"), dict):
                self.held = {str(k): _texts(v) for k, v in raw["held"].items()}

    @classmethod
    def of(cls, root: Path) -> Progress:
        return cls(Path(root) / STATE_FILE)

    def shown(self, exercise_id: str) -> int:
        return self.data["shown"].get(exercise_id, 0)

    def failures(self, exercise_id: str) -> int:
        return self.data["failures"].get(exercise_id, 0)

    def record_run(self, result) -> None:
        """Count a failed run for each exercise of this result that does not pass (a missing
        file is not a try), and remember the hints its feedback level kept back."""
        for e in result.exercises:
            self.record(e)

    def record(self, e) -> None:
        """record_run for one exercise's result."""
        if e.status not in ("passed", "missing"):
            self.data["failures"][e.id] = self.failures(e.id) + 1
        held = levels.held(e)[:MAX_HELD]
        if held != self.held.get(e.id, []):
            self.data["held_shown"].pop(e.id, None)  # other failures: their hints anew
        if held:
            self.held[e.id] = held
        else:
            self.held.pop(e.id, None)

    def opened(self, result, after: int | None):
        """The exercise's result as the student sees it: every kept-back hint shown once the
        exercise has failed `after` runs (None: never), else those `grader hint` showed."""
        if after is not None and self.failures(result.id) >= after:
            return levels.release(result)
        seen = self.held.get(result.id, [])[: self.data["held_shown"].get(result.id, 0)]
        return levels.release(result, only=seen) if seen else result

    def next_held(self, exercise_id: str) -> tuple[Text | None, int, int]:
        """(the next kept-back hint of the last run, its number, how many), marked shown;
        (None, 0, 0) when none is left."""
        held = self.held.get(exercise_id, [])
        n = self.data["held_shown"].get(exercise_id, 0)
        if n >= len(held):
            return None, 0, 0
        self.data["held_shown"][exercise_id] = n + 1
        return held[n], n + 1, len(held)

    def next_hint(self, exercise: Exercise) -> Step:
        """The next hint (and mark it shown), or why there is none."""
        hints, seen = exercise.hints, self.shown(exercise.id)
        failures = self.failures(exercise.id)
        if not hints:
            return Step(number=0, total=0, hint=None, failures=failures)
        if seen >= len(hints):
            return Step(
                number=len(hints), total=len(hints), hint=hints[-1], repeat=True, failures=failures
            )
        hint = hints[seen]
        if failures < hint.after_failures:
            return Step(
                number=seen + 1,
                total=len(hints),
                hint=None,
                locked_until=hint.after_failures,
                failures=failures,
            )
        self.data["shown"][exercise.id] = seen + 1
        return Step(number=seen + 1, total=len(hints), hint=hint, failures=failures)

    def seen_hints(self, exercise: Exercise) -> list[Hint]:
        return list(exercise.hints[: self.shown(exercise.id)])

    def reset(self, exercise_id: str) -> None:
        self.data["shown"].pop(exercise_id, None)
        self.data["held_shown"].pop(exercise_id, None)

    def save(self) -> None:
        """Write atomically; a read-only working copy only loses the progress, silently."""
        tmp = self.path.with_name(self.path.name + TEMP_SUFFIX)
        try:
            held = {k: [[t.id, t.en] for t in v] for k, v in self.held.items()}
            tmp.write_text(
                json.dumps({**self.data, "held": held}, indent=1, sort_keys=True) + "\n",
                encoding="utf-8",
            )
            os.replace(tmp, self.path)
        except OSError:
            pass


def _texts(value) -> list[Text]:
    """Kept-back hints as the state file holds them ([[id, en], ...]); anything else is left
    out (the file is the student's to edit)."""
    if not isinstance(value, list):
        return []
    return [
        Text(id=v[0], en=v[1])
        for v in value[:MAX_HELD]
        if isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)
    ]

"""Recorded checks: what a students' release judges with, instead of reference code.

The teacher's grader compares an answer with references it computes: spec expressions, scenario
`reference:` functions, exercise plugins' teacher.py. None of that leaves the
teacher's repository. `python -m grader release` writes instead, beside each released spec,
RECORD_FILE: for each visible check that draws examples, the examples drawn with the release's
seed, together with the smallest examples of the check's strategy (SMALL), sorted smallest
first, and what the reference observed on each (every value its kind asks for, Kind.prepare:
values, gradients, flags, exceptions, a training trace).

The students' grader (grader.grading.checkrun.run_recorded) replays those examples in that order, judges
each reply against the recorded observations, reports the first (smallest) failing one, and
names a mistake only where the other recorded failures confirm it, as grader.grading.confirm does with
fresh draws. The file is read back by grader.common.safepickle: tensors and the few data classes
grader.grading.examples.allowed() names (the grader's and its exercise plugins'), never code.

The grade itself is the teacher's: `batch` draws with a grading seed the release does not hold,
and runs hidden checks the release does not name.
"""

from __future__ import annotations

import math
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import NamedTuple

import torch
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample, Unsatisfiable

from grader.checks import KINDS
from grader.checks.base import Judging
from grader.common import safepickle
from grader.common.errors import GraderError
from grader.grading import examples
from grader.specs import strategies
from grader.specs.model import Check, Exercise

FORMAT = "grader-recorded/1"
RECORD_FILE = "recorded.pickle"


def _leaves(value, kind, depth: int = 0):
    """Every value of this type inside an example (containers and the grader's data classes)."""
    if depth > 16:
        return
    if isinstance(value, kind):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v, kind, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v, kind, depth + 1)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _leaves(getattr(value, f.name), kind, depth + 1)


def _tensors(value):
    return _leaves(value, torch.Tensor)


def size(inputs: dict) -> tuple:
    """How big an example reads: its elements, then how far its values are from zero."""
    tensors = [t for t in _tensors(inputs) if not t.is_complex()]
    numel = sum(t.numel() for t in tensors)
    magnitude = sum(
        float(torch.nan_to_num(t.detach().double().abs(), 1e300, 1e300).sum())
        for t in tensors
        if t.numel()
    )
    magnitude += sum(abs(f) if math.isfinite(f) else 1e300 for f in _leaves(inputs, float))
    return numel, magnitude


def _negative(inputs: dict) -> bool:
    return any(
        t.numel() and bool((t.detach() < 0).any())
        for t in _tensors(inputs)
        if t.dtype != torch.bool
    )


def _several(inputs: dict) -> bool:
    return any(
        t.numel() >= 2 and bool((t.detach() != t.detach().reshape(-1)[0]).any())
        for t in _tensors(inputs)
    )


SMALL = (lambda inputs: True, _negative, _several)
"""Conditions whose smallest example (hypothesis's find, shrunk) is recorded with the drawn ones:
the simplest example, the simplest with a negative value, the simplest with two different
values. A failure on them reads at a glance."""


def _smallest(exercise: Exercise, check: Check, kind) -> list[dict]:
    found = []
    strategy = kind.strategy(exercise, check)
    for condition in SMALL:
        try:
            found.append(
                find(
                    strategy,
                    condition,
                    settings=settings(
                        database=None,
                        deadline=None,
                        derandomize=True,
                        max_examples=100,
                        phases=(Phase.generate, Phase.shrink),
                        suppress_health_check=list(HealthCheck),
                    ),
                )
            )
        except (NoSuchExample, Unsatisfiable):
            continue
    return found


def recordable(exercise: Exercise) -> list[Check]:
    """The checks a release records: the visible ones that draw examples."""
    return [c for c in exercise.checks if not c.hidden and not KINDS[c.kind].static]


def record(exercise: Exercise, check: Check, count: int, seed: int) -> examples.Drawn:
    """The check's examples (drawn with this seed, and the smallest ones), smallest first, each
    with every reference value its kind may ask for."""
    kind = KINDS[check.kind]
    drawn = examples.draw(exercise, check, kind, count, strategies.seed_for(seed, exercise, check))
    pool = _smallest(exercise, check, kind) + drawn
    unique: list[dict] = []
    for inputs in pool:
        if not any(examples.same(inputs, u) for u in unique):
            unique.append(inputs)
    unique.sort(key=size)  # stable: equal sizes keep hypothesis's order
    memo: list[dict] = []
    for inputs in unique:
        m: dict = {}
        kind.prepare(Judging(exercise, check, examples.copied(inputs), memo=m))
        memo.append(m)
    return examples.Drawn(key=check.id, inputs=unique, memo=memo)


def write(
    path: Path,
    exercise: Exercise,
    records: dict[str, examples.Drawn],
    seed: int,
    curves: dict | None = None,
) -> None:
    """curves: per check id, the reference over `check --plot`'s grid (grader.grading.plot)."""
    data = {
        "format": FORMAT,
        "exercise": exercise.id,
        "seed": seed,
        "checks": {cid: {"inputs": d.inputs, "memo": d.memo} for cid, d in records.items()},
        "curves": dict(curves or {}),
    }
    Path(path).write_bytes(safepickle.dumps(data))
    safepickle.loads(
        Path(path).read_bytes(), examples.allowed()
    )  # what the students' grader will read


class Record(NamedTuple):
    """One exercise's recorded data, as load() reads it."""

    seed: int
    """The seed its examples were drawn with."""
    checks: dict
    """Each recorded check's examples (examples.Drawn) by check id."""
    curves: dict
    """The reference curves `check --plot` draws, by check id (see write)."""


_LOADED: dict[tuple, Record] = {}


def load(exercise: Exercise) -> Record:
    """The exercise's record (read once per file version, then kept)."""
    path = exercise.recorded
    try:
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        if key in _LOADED:
            return _LOADED[key]
        data = safepickle.loads(path.read_bytes(), examples.allowed())
        if not (
            isinstance(data, dict)
            and data.get("format") == FORMAT
            and data.get("exercise") == exercise.id
            and isinstance(data.get("checks"), dict)
        ):
            raise ValueError(f"not a {FORMAT} record of {exercise.id}")
        checks = {}
        for cid, entry in data["checks"].items():
            inputs, memo = entry["inputs"], entry["memo"]
            if not (
                isinstance(inputs, list) and isinstance(memo, list) and len(inputs) == len(memo)
            ):
                raise ValueError(f"check {cid}: inputs and memo differ in length")
            checks[cid] = examples.Drawn(key=cid, inputs=inputs, memo=memo)
        curves = data.get("curves") or {}
        if not (
            isinstance(curves, dict) and all(isinstance(v, torch.Tensor) for v in curves.values())
        ):
            raise ValueError("curves are not tensors by check id")
    except Exception as exc:
        raise GraderError(
            f"{path}: the recorded examples cannot be read ({type(exc).__name__}: "
            f"{str(exc)[:200]}). Get this exercise's folder again from your "
            "course's repository (it comes with the release, unchanged)"
        ) from None
    missing = [c.id for c in recordable(exercise) if c.id not in checks]
    if missing:
        raise GraderError(
            f"{path}: no recorded examples for check(s) {', '.join(missing)} of "
            f"exercises/{exercise.id}/exercise.yaml; get the exercise's folder "
            "again from your course's repository"
        )
    _LOADED[key] = Record(int(data.get("seed", 0)), checks, curves)
    return _LOADED[key]

"""The files of a batch folder: results.json (grader-batch/1) and batch.json (the manifest).

results.json holds one grader-result/1 dict per submission (report/jsonout.py) without wall-clock
fields, so two runs with the same seed write the same bytes. `merge` reads both files back into
the result model; texts come back in the one language they were written in.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from grader.common.errors import GraderError
from grader.common.safetext import atomic_write
from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult
from grader.report import jsonout
from grader.specs.model import Text

FORMAT = "grader-batch/1"
MANIFEST_FORMAT = "grader-batch-manifest/1"
RESULTS = "results.json"
MANIFEST = "batch.json"
EMPTY = hashlib.sha256(b"").hexdigest()[:16]
"""The hash of an empty file, as batch.fingerprints writes hashes."""
# Wall-clock fields differ between runs; they stay out of batch outputs.
_CLOCK = ("seconds",)


@dataclass
class Manifest:
    """What a batch folder covers: merge checks shards against it."""

    language: str
    exercises: list[str]
    """Exercise ids graded, in the course's order."""
    files: dict[str, dict[str, str | None]] = field(default_factory=dict)
    """Per submission id: exercise id to a hash of the graded file (None: missing)."""
    shard: tuple[int, int] | None = None
    """(K, N) for shard K of N; None for a whole class."""
    starters: dict[str, str] = field(default_factory=dict)
    """Per exercise id: the hash of its untouched starter (a submission whose file has this
    hash, or is empty, did not attempt the exercise)."""

    def attempt(self, submission: str, exercise: str) -> str:
        """attempted, missing (no file) or untouched (the starter as handed out, or empty)."""
        digest = self.files.get(submission, {}).get(exercise, "")
        if digest is None:
            return "missing"
        if digest in (EMPTY, self.starters.get(exercise)):
            return "untouched"
        return "attempted"

    def as_dict(self) -> dict:
        return {
            "format": MANIFEST_FORMAT,
            "language": self.language,
            "shard": f"{self.shard[0]}/{self.shard[1]}" if self.shard else None,
            "exercises": self.exercises,
            "starters": {k: self.starters[k] for k in sorted(self.starters)},
            "submissions": {k: self.files[k] for k in sorted(self.files)},
        }


def document(results: list[SubmissionResult], lang: str, people=None) -> dict:
    """people: submission id -> its roster entry (grader.outcomes.roster.Person), added to its
    result as `student` (login, name, email, lms_id); a reader that knows no roster ignores it."""
    subs = []
    for r in results:
        d = jsonout.result_dict(r, lang)
        if people and r.submission in people:
            d["student"] = people[r.submission].as_dict()
        for e in d["exercises"]:
            for key in _CLOCK:
                e.pop(key, None)
        subs.append(d)
    return {"format": FORMAT, "submissions": subs}


def _dump(path: Path, data: dict) -> None:
    atomic_write(path, json.dumps(data, indent=2, ensure_ascii=True) + "\n")


def write(out: Path, results: list[SubmissionResult], manifest: Manifest, people=None) -> None:
    _dump(out / RESULTS, document(results, manifest.language, people))
    _dump(out / MANIFEST, manifest.as_dict())


def _load_json(path: Path, fmt: str) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GraderError(f"{path}: not found; is this the --out folder of a batch?") from None
    except (OSError, ValueError) as exc:
        raise GraderError(f"{path}: cannot read: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise GraderError(f"{path}: expected format {fmt!r}, got {got!r}")
    return data


def read(folder: Path) -> tuple[list[SubmissionResult], Manifest]:
    """A batch folder's results and manifest; errors name the file and the field."""
    folder = Path(folder)
    data = _load_json(folder / RESULTS, FORMAT)
    raw = _load_json(folder / MANIFEST, MANIFEST_FORMAT)
    try:
        shard = tuple(int(x) for x in raw["shard"].split("/")) if raw["shard"] else None
        manifest = Manifest(
            language=str(raw["language"]),
            exercises=list(raw["exercises"]),
            files=dict(raw["submissions"]),
            shard=shard,
            starters=dict(raw.get("starters") or {}),
        )
        results = [_result(d) for d in data["submissions"]]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise GraderError(
            f"{folder}: malformed batch output ({type(exc).__name__}: {exc})"
        ) from None
    return results, manifest


def _text(value) -> Text | None:
    return None if value is None else Text(id=value, en=value)


HELD = Text(id="", en="")
"""A hint the feedback level kept back, read back from results.json: the file says only that
there is one (`hint_held`), never its text, which `grader hint ID` shows in the student's copy."""


def _check(d: dict) -> CheckResult:
    mistake = d.get("mistake") if isinstance(d.get("mistake"), dict) else None  # added in 44
    return CheckResult(
        id=d["id"],
        title=_text(d["title"]),
        kind=d["kind"],
        status=d["status"],
        points=float(d["points"]),
        max_points=float(d["max_points"]),
        message=_text(d["message"]),
        counterexample=d["counterexample"],
        hint=_text(d["hint"]),
        held_hint=HELD if d.get("hint_held") else None,  # absent before feedback levels: none
        traceback=list(d["traceback"]),
        hidden=bool(d["hidden"]),
        bonus=bool(d["bonus"]),
        cause=d.get("cause"),
        mistake=mistake.get("id") if mistake else None,
        mistake_title=_text(mistake.get("title")) if mistake else None,
        output=d.get("output"),
        output_cut=int(d.get("output_cut") or 0),
        helpful_hints=tuple(d.get("helpful_hints") or ()),
        shrink_cut=bool(d.get("shrink_cut")),  # absent before shrink budgets: a full shrink
    )


def _exercise(d: dict) -> ExerciseResult:
    return ExerciseResult(
        id=d["id"],
        title=_text(d["title"]),
        status=d["status"],
        checks=[_check(c) for c in d["checks"]],
        message=_text(d["message"]),
        traceback=list(d["traceback"]),
        file=d["file"],
        hidden_checks=int(d["hidden_checks"]),
        untouched=bool(d.get("untouched")),
        ignored=[
            (str(i["file"]), str(i["why"])) for i in d.get("ignored") or () if isinstance(i, dict)
        ],
    )


def _result(d: dict) -> SubmissionResult:
    if d.get("format") != jsonout.FORMAT:
        raise ValueError(f"submission format {d.get('format')!r}, expected {jsonout.FORMAT!r}")
    return SubmissionResult(
        submission=d["submission"],
        environment=dict(d["environment"]),
        exercises=[_exercise(e) for e in d["exercises"]],
        late=dict(d["late"]) if isinstance(d.get("late"), dict) else None,
    )

"""The grader-result/1 JSON document (shared/design.md, section 5)."""

from __future__ import annotations

import json
from pathlib import Path

from grader.common.safetext import atomic_write
from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult

FORMAT = "grader-result/1"


def _text(t, lang):
    return t.get(lang) if t is not None else None


def check_dict(c: CheckResult, lang: str) -> dict:
    return {
        "id": c.id,
        "title": _text(c.title, lang),
        "kind": c.kind,
        "status": c.status,
        "points": c.points,
        "max_points": c.max_points,
        "message": _text(c.message, lang),
        "counterexample": c.counterexample,
        "hint": _text(c.hint, lang),
        "hint_held": c.held_hint is not None,
        "traceback": c.traceback,
        "hidden": c.hidden,
        "bonus": c.bonus,
        "cause": c.cause,
        "mistake": (
            {"id": c.mistake, "title": _text(c.mistake_title, lang)} if c.mistake else None
        ),
        "output": c.output,
        "output_cut": c.output_cut,
        "helpful_hints": list(c.helpful_hints),
        "shrink_cut": c.shrink_cut,
    }


def exercise_dict(e: ExerciseResult, lang: str) -> dict:
    return {
        "id": e.id,
        "title": _text(e.title, lang),
        "score": e.score,
        "max_score": e.max_score,
        "status": e.status,
        "message": _text(e.message, lang),
        "traceback": e.traceback,
        "file": e.file,
        "untouched": e.untouched,
        "ignored": [{"file": f, "why": why} for f, why in e.ignored],
        "seconds": round(e.seconds, 3),
        "hidden_checks": e.hidden_checks,
        "bonus": {"score": e.bonus_score, "max_score": e.bonus_max},
        "checks": [check_dict(c, lang) for c in e.checks],
    }


def result_dict(r: SubmissionResult, lang: str) -> dict:
    out = {
        "format": FORMAT,
        "submission": r.submission,
        "score": r.score,
        "max_score": r.max_score,
        "language": lang,
        "environment": r.environment,
        "exercises": [exercise_dict(e, lang) for e in r.exercises],
    }
    if r.late is not None:  # batch --deadline on a git repository (an added key)
        out["late"] = r.late
        out["score_before_penalty"] = r.raw_score
    return out


def write(path: Path, r: SubmissionResult, lang: str) -> None:
    atomic_write(Path(path), json.dumps(result_dict(r, lang), indent=2, ensure_ascii=False) + "\n")

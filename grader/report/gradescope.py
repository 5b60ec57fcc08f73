"""Gradescope autograder results: OUT/gradescope/<submission>/results.json.

One test per check (score, max_score, status, name, number, output, visibility). Hidden checks
are "after_published": students see them once the teacher publishes the grades, and batch
results never carry a hidden check's inputs. Bonus checks are listed with their points but, as in
the rest of the grader, stay out of the top-level score.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from grader.common.safetext import REFUSED_NAME, ascii_file_name, atomic_write, file_names
from grader.outcomes.results import (
    CheckResult,
    ExerciseResult,
    SubmissionResult,
    shown_environment,
)

FOLDER = "gradescope"


def _output(e: ExerciseResult, c: CheckResult, lang: str) -> str:
    if c.status == "passed":
        return ""
    message = c.message or e.message
    lines = [message.get(lang)] if message is not None else [c.status]
    if c.counterexample:
        lines.append(("Contoh gagal: " if lang == "id" else "Failing input: ") + c.counterexample)
    lines += c.traceback
    if c.hint is not None:
        lines.append(("Petunjuk: " if lang == "id" else "Hint: ") + c.hint.get(lang))
    return "\n".join(lines)


def submission_dict(r: SubmissionResult, lang: str) -> dict:
    tests = []
    for e in r.exercises:
        for c in e.checks:
            tests.append(
                {
                    "name": f"{e.title.get(lang)}: {c.title.get(lang)}",
                    "number": f"{e.id}.{c.id}",
                    "score": c.points,
                    "max_score": c.max_points,
                    "status": "passed" if c.status == "passed" else "failed",
                    "output": _output(e, c, lang),
                    "tags": [e.id, c.kind] + (["bonus"] if c.bonus else []),
                    "visibility": "after_published" if c.hidden else "visible",
                }
            )
    lines = [f"{e.id}: {e.score:g}/{e.max_score:g} ({e.status})" for e in r.exercises]
    return {
        "score": r.score,
        "output": "\n".join(lines),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "submission": r.submission,
            "environment": shown_environment(r.environment),
        },
    }


def write(out: Path, results: list[SubmissionResult], lang: str) -> None:
    """OUT/gradescope/<submission>/results.json (a name that is no plain file name gets a safe
    one, safetext.file_names; extra_data says whose it is); rewrites OUT/gradescope, so that no
    file of an earlier run stays behind."""
    folder = Path(out) / FOLDER
    shutil.rmtree(folder, ignore_errors=True)
    names = file_names(r.submission for r in results)
    for r in results:
        content = json.dumps(submission_dict(r, lang), indent=2, ensure_ascii=True) + "\n"
        try:
            _write(folder / names[r.submission], content)
        except OSError as exc:  # a file system that refuses the name: an ASCII one
            if exc.errno not in REFUSED_NAME:
                raise
            _write(folder / ascii_file_name(r.submission), content)


def _write(target: Path, content: str) -> None:
    target.mkdir(parents=True, exist_ok=True)
    atomic_write(target / "results.json", content)

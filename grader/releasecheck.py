"""The checks a release passes before it is written (grader/release.py).

Every spec in it loads and holds no hidden check; its config has no gradebook; no teacher's
folder came along; no line of solutions/ is in any of its files (grader/leaks.py); and its own
`python -m grader`, run as a subprocess in the release, grades the untouched starters 0 with no
traceback. Each failure raises GraderError naming the file and what to fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import config as config_mod, leaks, spec as spec_mod
from .errors import GraderError, SpecError
from .spec import Exercise

TEACHER_ONLY = ("solutions", "tests", "benchmarks")
SHOWN = 5
"""Leaks and starter points listed in an error before "and N more"."""


def verify(*, folder: Path, root: Path, exercises: list[Exercise], python: str | None = None,
           on_step=None) -> None:
    step = on_step or (lambda text: None)
    step("specs, config and layout")
    check_specs(folder, exercises)
    check_layout(folder)
    step("no line of solutions/ in any file")
    check_leaks(folder, root, exercises)
    step("the untouched starters score 0 (python -m grader check, in the release)")
    check_starters(folder, exercises, python)


def check_specs(folder: Path, exercises: list[Exercise]) -> None:
    try:
        loaded = spec_mod.discover(folder / "exercises", root=folder)
    except SpecError as exc:
        raise GraderError(f"release: a spec of the release does not load: {exc}") from None
    got, want = [e.id for e in loaded], [e.id for e in exercises]
    if got != want:
        raise GraderError(f"release: the release holds exercises {got}, expected {want}")
    for teacher, public in zip(exercises, loaded):
        if any(c.hidden for c in public.checks):
            raise GraderError(f"release: exercises/{public.id}/exercise.yaml still holds a "
                              "hidden check")
        kept = sum(c.hidden for c in teacher.checks) + teacher.hidden_checks
        if public.hidden_checks != kept:
            raise GraderError(f"release: exercises/{public.id}/exercise.yaml says "
                              f"{public.hidden_checks} hidden check(s); the teacher's spec has "
                              f"{kept}")


def check_layout(folder: Path) -> None:
    for name in TEACHER_ONLY:
        if (folder / name).exists():
            raise GraderError(f"release: {name}/ must not be in the students' copy")
    if (folder / "config.yaml").is_file():
        try:
            gradebook = config_mod.load(folder / "config.yaml").gradebook
        except SpecError as exc:
            raise GraderError(f"release: the release's config.yaml does not load: {exc}") \
                from None
        if gradebook is not None:
            raise GraderError("release: the release's config.yaml names a gradebook")


def given_lines(folder: Path, exercises: list[Exercise]) -> set[str]:
    """Lines handed out on purpose: the teacher's starters and the grader's own source."""
    paths = [p for e in exercises for p in e.path.parent.glob("*.py")]
    return leaks.stripped_lines(paths + list((folder / "grader").rglob("*.py")))


def check_leaks(folder: Path, root: Path, exercises: list[Exercise]) -> None:
    solutions = root / "solutions"
    if not solutions.is_dir():
        return
    found = leaks.scan(folder, leaks.answers(solutions, given_lines(folder, exercises)))
    if found:
        shown = [f"{leak.file.relative_to(folder)}, line {leak.line}: {leak.text!r} (from "
                 f"{leak.source.relative_to(root)})" for leak in found[:SHOWN]]
        more = f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        raise GraderError("release: the students' copy would contain lines of solutions/: "
                          + "; ".join(shown) + more + ". Remove the answer from that file "
                          "(a starter gives the scaffold, not the answer)")


def check_starters(folder: Path, exercises: list[Exercise], python: str | None = None) -> None:
    """Run the release's own grader on its starters: exit 1, no traceback, every score 0."""
    config = config_mod.load_or_default(folder / "config.yaml"
                                        if (folder / "config.yaml").is_file() else None)
    limit = len(exercises) * (config.time_per_exercise + 2 * config.time_per_call + 30) + 120
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", COLUMNS="160")
    env.pop("PYTHONPATH", None)  # the release's grader, not the teacher's
    with tempfile.TemporaryDirectory(prefix="grader-release-check-") as scratch:
        result_file = Path(scratch) / "result.json"
        command = [python or sys.executable, "-m", "grader", "check", "--json",
                   str(result_file), "--lang", "en"]
        try:
            proc = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True,
                                  timeout=limit)
        except subprocess.TimeoutExpired:
            raise GraderError(f"release: grading the starters took longer than {limit:g} s") \
                from None
        output = (proc.stdout or "") + (proc.stderr or "")
        if "Traceback (most recent call last)" in output or proc.returncode not in (0, 1) \
                or not result_file.is_file():
            raise GraderError(f"release: `python -m grader check` in the release exited with "
                              f"{proc.returncode}:\n{output[-3000:]}")
        data = json.loads(result_file.read_text(encoding="utf-8"))
    problems = []
    for e in data["exercises"]:
        if e["status"] == "missing":
            problems.append(f"exercises/{e['id']}/: its starter was not found ({e['message']})")
            continue
        earned = e["score"] + e["bonus"]["score"]
        if earned > 0:
            checks = ", ".join(c["id"] for c in e["checks"] if c["points"] > 0)
            problems.append(f"exercises/{e['file']}: the untouched starter scores "
                            f"{earned:g}/{e['max_score']:g} ({checks}); a student would earn "
                            "points for doing nothing. Make the starter fail those checks (raise "
                            "NotImplementedError where the student writes code), or make the "
                            "checks stricter")
    if problems:
        raise GraderError("release: " + "; ".join(problems[:SHOWN]))

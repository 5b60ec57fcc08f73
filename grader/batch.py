"""Grading a whole class: discover submissions, take a shard, grade in parallel, write outputs.

`run()` is the keyword-only API behind `python -m grader batch`; `write_outputs()` writes the
same files for a single run and for `merge` (grader/merge.py). Hidden checks run here, and their
inputs never reach an output: see conceal().
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import batchfile, classstats, notebook
from .batchfile import Manifest
from .config import Config
from .errors import GraderError
from .grading import environment
from .messages import both
from .pool import Lost, Setup, Task, grade_all
from .report import csvout, gradescope, junit, markdown
from .results import CheckResult, ExerciseResult, SubmissionResult
from .spec import Exercise

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
CSV, JUNIT, SUMMARY = "grades.csv", "junit.xml", "summary.md"


@dataclass
class Batch:
    """What a batch run produced."""

    results: list[SubmissionResult]
    """Sorted by submission id, hidden checks concealed."""
    manifest: Manifest
    lost: dict[str, Lost] = field(default_factory=dict)
    """Submissions the grader could not finish, by id (each has an error result too)."""
    seconds: float = 0.0


def discover(directory: Path) -> list[Task]:
    """Every subdirectory is one submission, named by its folder; dot-folders are skipped."""
    directory = Path(directory)
    if not directory.is_dir():
        raise GraderError(f"submissions directory not found: {directory}")
    return [Task(p.name, p) for p in sorted(directory.iterdir(), key=lambda p: p.name)
            if p.is_dir() and not p.name.startswith(".")]


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' with 1 <= K <= N."""
    match = _SHARD.match(text or "")
    if not match:
        raise GraderError(f"--shard {text!r}: expected K/N such as 2/4 (shard 2 of 4)")
    k, n = int(match.group(1)), int(match.group(2))
    if not 1 <= k <= n:
        raise GraderError(f"--shard {text!r}: K must be between 1 and N, e.g. 1/{max(n, 1)}")
    return k, n


def take_shard(tasks: list[Task], shard: tuple[int, int] | None) -> list[Task]:
    """Every N-th submission by sorted name, starting at the K-th: shards are disjoint,
    cover the class, and differ in size by at most one."""
    if shard is None:
        return list(tasks)
    k, n = shard
    return sorted(tasks, key=lambda t: t.id)[k - 1::n]


def fingerprints(task: Task, exercises: list[Exercise]) -> dict[str, str | None]:
    """A short hash of each exercise file graded, so a regrade can tell a changed file apart."""
    out = {}
    for e in exercises:
        found = notebook.locate(task.path, e.file)  # <id>.py or <id>.ipynb
        digest = hashlib.sha256()
        for path in found:
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"<unreadable>")
        out[e.id] = digest.hexdigest()[:16] if found else None
    return out


def conceal(result: SubmissionResult) -> SubmissionResult:
    """Hidden checks keep status, points and title; their inputs, values and tracebacks go."""
    exercises = [replace(e, checks=[_conceal_check(c) for c in e.checks]) for e in result.exercises]
    return replace(result, exercises=exercises)


def _conceal_check(c: CheckResult) -> CheckResult:
    if not c.hidden or c.status == "passed":
        return c
    message = both("Pemeriksaan tersembunyi ({k}) tidak lulus ({s}): {t}. Inputnya tidak "
                   "ditampilkan; pelajari lagi ide pemeriksaan ini.",
                   "Hidden check ({k}) did not pass ({s}): {t}. Its inputs are not shown; "
                   "revisit the idea it checks.", k=c.kind, s=c.status, t=c.title)
    return replace(c, message=message, counterexample=None, traceback=[], output=None,
                   output_cut=0)


def unfinished(task: Task, lost: Lost, exercises: list[Exercise], config: Config) \
        -> SubmissionResult:
    """The result of a submission the grader could not finish: every check an error, 0 points,
    with a message that says it is the grader's fault."""
    message = both("Kiriman ini belum selesai dinilai: {d}. Ini kesalahan grader, bukan "
                   "salahmu; pengajar akan menilainya ulang.",
                   "This submission could not be graded: {d}. This is the grader's fault, "
                   "not yours; your teacher will regrade it.", d=lost.detail)
    rows = [ExerciseResult(id=e.id, title=e.title, status="error", message=message,
                           checks=[CheckResult(id=c.id, title=c.title, kind=c.kind,
                                               status="error", points=0.0,
                                               max_points=c.points, hidden=c.hidden,
                                               bonus=c.bonus) for c in e.checks])
            for e in exercises]
    return SubmissionResult(submission=task.id, exercises=rows,
                            environment=environment(config, exercises))


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def submission_limit(exercises: list[Exercise], config: Config) -> float:
    """Seconds one submission may take in all: its exercises' limits, plus a start-up margin.
    Only a grader fault reaches it, since each exercise already stops at its own limit."""
    return len(exercises) * (config.time_per_exercise + 2 * config.time_per_call + 10) + 120


def run(*, submissions_dir: Path, exercises: list[Exercise], config: Config, lang: str,
        root: Path, jobs: int | None = None, shard: tuple[int, int] | None = None,
        out: Path | None = None, on_result=None, target=None) -> Batch:
    """Grade every submission of a class (or one shard of it) with hidden checks included.

    on_result(task, result, lost) is called as each submission finishes (lost is None unless
    the grader failed). With out, the outputs are written there (see write_outputs).
    """
    started = time.monotonic()
    if out is not None:
        _apart(Path(submissions_dir), Path(out))
    tasks = take_shard(discover(submissions_dir), shard)
    setup = Setup(spec_paths=tuple(e.path for e in exercises), root=root, config=config)
    extra = {"target": target} if target is not None else {}
    results, lost = {}, {}
    for task, outcome in grade_all(tasks, jobs=jobs or default_jobs(), setup=setup,
                                   limit=submission_limit(exercises, config), **extra):
        if isinstance(outcome, Lost):
            lost[task.id] = outcome
            outcome = unfinished(task, outcome, exercises, config)
        results[task.id] = conceal(outcome)
        if on_result:
            on_result(task, results[task.id], lost.get(task.id))
    manifest = Manifest(language=lang, exercises=[e.id for e in exercises],
                        files={t.id: fingerprints(t, exercises) for t in tasks}, shard=shard)
    batch = Batch(results=[results[k] for k in sorted(results)], manifest=manifest, lost=lost,
                  seconds=time.monotonic() - started)
    if out is not None:
        write_outputs(Path(out), batch.results, manifest)
    return batch


def _apart(submissions: Path, out: Path) -> None:
    """The output folder is rewritten in part, and a folder in DIR would be a submission."""
    a, b = submissions.resolve(), out.resolve()
    if a == b or a.is_relative_to(b) or b.is_relative_to(a):
        raise GraderError(f"--out {out} and the submissions folder {submissions} overlap; "
                          "write the outputs to a folder outside it, such as out/")


def write_outputs(out: Path, results: list[SubmissionResult], manifest: Manifest) -> None:
    """results.json, batch.json, grades.csv, junit.xml, summary.md and gradescope/<id>/."""
    out.mkdir(parents=True, exist_ok=True)
    lang = manifest.language
    batchfile.write(out, results, manifest)
    csvout.write(out / CSV, results, manifest.exercises)
    junit.write(out / JUNIT, results, lang)
    markdown.write(out / SUMMARY, classstats.compute(results), lang)
    gradescope.write(out, results, lang)

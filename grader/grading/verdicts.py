"""A student's verdicts kept per exercise file, so that a run re-grades only what changed.

A student checks the whole course again and again while editing one file. An exercise's result
depends on the bytes of its file (and of the .py files beside it, which its scratch copy gets),
the spec, the checks chosen, the configuration and the grader (sources and versions): with all of them the same, grading gives the same verdict, so the kept
one is shown instead (`check --fresh` grades everything again).

Only verdicts judged from the answer's own data are kept: passed, failed, a check skipped, or an
exception the student's code raised. Anything that involved time, memory, a crash, the machine
or the grader (timeouts, lost workers, "grader error", an import that failed) is graded again on
the next run. The student's commands (`check`, the course view, `watch`) use this; `batch`,
`validate` and everything a grade depends on never read a kept verdict from disk. Kept in
speccache.folder()/verdicts, outside the project, safe to delete, sealed with the cache's key
(speccache.secret: a file sealed otherwise is graded again), and named by the file's content:
an entry planted for one file's bytes changes nothing for other bytes. GRADER_CACHE=off turns
it off.

`batch` keeps verdicts too, in the memory of each grading process (Shared), for the one run:
the same key is the same file bytes, helpers, spec, checks, seed and grader, so a second
student's byte-identical file (an untouched starter, a copy) gets the verdict its grading would
give, without grading it again. Nothing of it is on disk, and nothing outlives the run.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
from pathlib import Path

from grader.common import safepickle, safetext
from grader.loader import speccache
from grader.outcomes.results import CheckResult, ExerciseResult
from grader.specs.model import Exercise
from grader.submissions import answer, notebook
from grader.submissions import files as submission

_ALLOWED = {
    ("grader.outcomes.results", "ExerciseResult"),
    ("grader.outcomes.results", "CheckResult"),
    ("grader.specs.model", "Text"),
    ("grader.specs.model", "Hint"),
}
KEPT_CHECK = {"passed", "failed", "skipped"}


def key(
    exercise: Exercise,
    submission_dir: Path,
    config,
    include_hidden: bool,
    choice: answer.Answer | None = None,
) -> str | None:
    """The key of this exercise's verdict for the file in submission_dir (None: nothing to
    key on, such as a missing file or two candidates). choice: answer.choose's, if made."""
    choice = choice or answer.choose(submission_dir, exercise)
    if choice.path is None:
        return None
    found = [choice.path]
    try:
        data = notebook.read(found[0])  # capped: a huge file is that exercise's error
    except OSError:
        return None
    h = hashlib.sha256()
    settings = json.dumps({k: repr(v) for k, v in sorted(dataclasses.asdict(config).items())})
    record = ""
    if exercise.recorded is not None:  # a release's recorded examples: what it judges with
        try:
            stat = exercise.recorded.stat()
            record = f"{stat.st_size}/{stat.st_mtime_ns}"
        except OSError:
            return None
    for part in (
        speccache.code_digest(),
        exercise.id,
        exercise.spec_hash,
        exercise.plugin_digest,
        record,
        ",".join(c.id for c in exercise.checks),
        settings,
        str(include_hidden),
        os.environ.get("GRADER_SANDBOX", ""),
        found[0].name,
        repr([(str(p.relative_to(submission_dir)), why) for p, why in choice.ignored]),
    ):
        h.update(part.encode() + b"\0")
    h.update(data)
    # The files its scratch copy gets beside it (a helper module it names): with no bytes of
    # the file itself counted against their cap, at least those the copy gets. A .py file's
    # copy runs these very bytes; a notebook's runs its code, so all of them count there.
    source = None if found[0].suffix == notebook.SUFFIX else data
    for name, other in submission.beside(found[0], exercise.file, source=source):
        h.update(b"\0" + name.encode() + b"\0" + other)
    return h.hexdigest()[:40]


def placed(result: ExerciseResult | None, choice: answer.Answer, submission_dir: Path):
    """A kept verdict as this submission's own: the file it names is where this submission
    holds it, `choice` (the same bytes lie at src/x.py in one student's folder, x.py in
    another's)."""
    if result is not None and choice.path is not None:
        result.file = safetext.name(str(choice.path.relative_to(submission_dir)))
    return result


def _path(k: str) -> Path | None:
    where = speccache.folder()
    return None if where is None else where / "verdicts" / f"{k}.pickle"


def recall(k: str | None) -> ExerciseResult | None:
    path = _path(k) if k else None
    if path is None:
        return None
    try:
        result = safepickle.load(path, _ALLOWED, key=speccache.secret())
    except Exception:  # absent, unreadable, another format, not sealed with our key: grade
        return None
    return result if isinstance(result, ExerciseResult) else None


def keepable(result: ExerciseResult) -> bool:
    """A verdict judged from the answer's data alone (see the module's docstring)."""
    if result.status not in ("passed", "failed") or result.message is not None:
        return False
    return all(c.status in KEPT_CHECK or _raised(c) for c in result.checks)


def _raised(check: CheckResult) -> bool:
    return check.status == "error" and (check.cause or "").startswith("raised:")


class Shared:
    """Verdicts kept in memory for one batch process (see the module's docstring): recall and
    keep as the disk's, at most LIMIT of them (the oldest go first)."""

    LIMIT = 4096

    def __init__(self) -> None:
        self.results: dict[str, ExerciseResult] = {}
        self.reused = 0
        """How many exercises were given a kept verdict (the tests read it)."""
        self.new: list[str] = []
        """Keys kept since news() was last called (learn()'s are not news)."""

    def recall(self, k: str | None) -> ExerciseResult | None:
        found = self.results.get(k) if k else None
        if found is None:
            return None
        self.reused += 1
        return copy.deepcopy(found)  # each student's result is their own to change (lateness)

    def keep(self, k: str | None, result: ExerciseResult) -> None:
        if k is None or not keepable(result):
            return
        self._put(k, dataclasses.replace(result, seconds=0.0))
        self.new.append(k)

    def _put(self, k: str, result: ExerciseResult) -> None:
        if k not in self.results and len(self.results) >= self.LIMIT:
            del self.results[next(iter(self.results))]
        self.results[k] = result

    def news(self) -> tuple:
        """(key, result) of the verdicts kept since the last call: for the batch's other
        grading processes (grader.batch.pool)."""
        new = tuple((k, self.results[k]) for k in dict.fromkeys(self.new) if k in self.results)
        self.new = []
        return new

    def learn(self, pairs) -> None:
        """Keep the verdicts another grading process of the batch kept (news())."""
        for k, result in pairs:
            if isinstance(k, str) and isinstance(result, ExerciseResult) and keepable(result):
                self._put(k, result)


def keep(k: str | None, result: ExerciseResult) -> None:
    path = _path(k) if k else None
    if path is None or not keepable(result):
        return
    safepickle.save(path, dataclasses.replace(result, seconds=0.0), key=speccache.secret())

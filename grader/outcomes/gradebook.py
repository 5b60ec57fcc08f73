"""The SQLite gradebook: every batch run recorded, and what changed since a student's last run.

Tables: runs (one per batch or merge), scores (a submission's total in a run, with hashes of the
files graded) and checks (every check's status and points). A regrade compares each submission
with its own previous run and says which checks flipped, and what differed that explains it:
the student's file, the exercise's spec, the seed or the grader's version.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from grader.common.errors import GraderError
from grader.outcomes.results import SubmissionResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    recorded TEXT NOT NULL,          -- UTC, ISO 8601
    command TEXT NOT NULL,           -- batch or merge
    shard TEXT                       -- K/N, or NULL for a whole class
);
CREATE TABLE IF NOT EXISTS scores (
    run INTEGER NOT NULL REFERENCES runs(id),
    submission TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    environment TEXT NOT NULL,       -- JSON: grader, torch, python, seed, spec_hashes
    files TEXT NOT NULL,             -- JSON: exercise id -> hash of the file graded (or null)
    PRIMARY KEY (run, submission)
);
CREATE TABLE IF NOT EXISTS checks (
    run INTEGER NOT NULL REFERENCES runs(id),
    submission TEXT NOT NULL,
    exercise TEXT NOT NULL,
    check_id TEXT NOT NULL,
    status TEXT NOT NULL,
    points REAL NOT NULL,
    max_points REAL NOT NULL,
    PRIMARY KEY (run, submission, exercise, check_id)
);
CREATE INDEX IF NOT EXISTS scores_by_submission ON scores (submission, run);
"""


@dataclass
class Flip:
    """One check whose status or points differ from the previous run (None: not there)."""

    exercise: str
    check: str
    before: str | None
    after: str | None
    points_before: float
    points_after: float


@dataclass
class Change:
    """A submission whose score or checks differ from its previous run."""

    submission: str
    previous_run: int
    score_before: float
    score_after: float
    max_before: float
    max_after: float
    flips: list[Flip] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)
    """What differed between the two runs: file, spec, seed, versions (empty: nothing did,
    so the difference came from timing, such as a timeout on a busy machine)."""


def _connect(path: Path) -> sqlite3.Connection:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        conn.executescript(SCHEMA)
    except (OSError, sqlite3.Error) as exc:
        raise GraderError(f"gradebook {path}: cannot open: {exc}") from None
    return conn


def record(
    path: Path,
    results: list[SubmissionResult],
    *,
    files: dict,
    command: str,
    shard: tuple[int, int] | None = None,
) -> int:
    """Store one run; returns its id. files: per submission, exercise id to file hash."""
    with closing(_connect(path)) as conn, conn:
        cur = conn.execute(
            "INSERT INTO runs (recorded, command, shard) VALUES (?, ?, ?)",
            (
                datetime.now(timezone.utc).isoformat(timespec="seconds"),
                command,
                f"{shard[0]}/{shard[1]}" if shard else None,
            ),
        )
        run = cur.lastrowid
        for r in results:
            conn.execute(
                "INSERT INTO scores VALUES (?, ?, ?, ?, ?, ?)",
                (
                    run,
                    r.submission,
                    r.score,
                    r.max_score,
                    json.dumps(r.environment, sort_keys=True),
                    json.dumps(files.get(r.submission, {}), sort_keys=True),
                ),
            )
            conn.executemany(
                "INSERT INTO checks VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (run, r.submission, e.id, c.id, c.status, c.points, c.max_points)
                    for e in r.exercises
                    for c in e.checks
                ],
            )
    return run


def changes(path: Path, run: int) -> list[Change]:
    """Submissions of `run` whose score or checks differ from their own previous run."""
    with closing(_connect(path)) as conn:
        out = []
        rows = conn.execute(
            "SELECT submission, score, max_score, environment, files FROM scores "
            "WHERE run = ? ORDER BY submission",
            (run,),
        ).fetchall()
        for sub, score, max_score, env, files in rows:
            prev = conn.execute(
                "SELECT run, score, max_score, environment, files FROM scores "
                "WHERE submission = ? AND run < ? ORDER BY run DESC LIMIT 1",
                (sub, run),
            ).fetchone()
            if prev is None:
                continue
            flips = _flips(conn, sub, prev[0], run)
            if not flips and prev[1] == score and prev[2] == max_score:
                continue
            out.append(
                Change(
                    sub,
                    prev[0],
                    prev[1],
                    score,
                    prev[2],
                    max_score,
                    flips,
                    _causes(
                        json.loads(prev[3]),
                        json.loads(env),
                        json.loads(prev[4]),
                        json.loads(files),
                    ),
                )
            )
        return out


def previous_runs(path: Path, run: int) -> int:
    """How many runs were recorded before this one."""
    with closing(_connect(path)) as conn:
        return conn.execute("SELECT COUNT(*) FROM runs WHERE id < ?", (run,)).fetchone()[0]


def _flips(conn, submission: str, before: int, after: int) -> list[Flip]:
    def rows(run):
        return {
            (e, c): (s, p)
            for e, c, s, p in conn.execute(
                "SELECT exercise, check_id, status, points FROM checks WHERE run = ? AND "
                "submission = ? ORDER BY rowid",
                (run, submission),
            )
        }

    old, new = rows(before), rows(after)
    keys = list(new) + [k for k in old if k not in new]
    flips = []
    for key in keys:
        (s0, p0), (s1, p1) = old.get(key, (None, 0.0)), new.get(key, (None, 0.0))
        if s0 != s1 or p0 != p1:
            flips.append(Flip(key[0], key[1], s0, s1, p0, p1))
    return flips


def _causes(env0: dict, env1: dict, files0: dict, files1: dict) -> list[str]:
    causes = []
    for ex in sorted(set(files0) | set(files1)):
        f0, f1 = files0.get(ex), files1.get(ex)
        if f0 != f1:
            how = "changed" if f0 and f1 else "added" if f1 else "removed"
            causes.append(f"{ex}: the student's file was {how}")
    specs0, specs1 = env0.get("spec_hashes", {}), env1.get("spec_hashes", {})
    for ex in sorted(set(specs0) | set(specs1)):
        if specs0.get(ex) != specs1.get(ex):
            causes.append(f"{ex}: the exercise spec changed")
    for key in ("seed", "grader", "torch", "hypothesis", "python"):
        if env0.get(key) != env1.get(key):
            causes.append(f"{key} {env0.get(key)} -> {env1.get(key)}")
    return causes

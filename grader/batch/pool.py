"""Grading processes for a batch: each owns one sandbox and grades one submission at a time.

Processes are started with 'spawn' (no state inherited from the parent, which may hold threads)
and each starts its own Sandbox template. The parent knows which submission every process is
grading, so a process that dies or runs past its limit costs that one submission; a fresh
process takes its place and the batch goes on.

The verdicts a process keeps for byte-identical files (grader.grading.verdicts.Shared) travel
through the parent to the other processes with their next task, so that a file of the class is
graded once by the batch rather than once by each process (only two graded at the same moment
are both graded). They are the grader's own results, judged from the answer's data alone.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import time
from collections import deque
from dataclasses import dataclass, replace
from multiprocessing.connection import wait
from pathlib import Path

from grader.loader.config import Config

_CTX = mp.get_context("spawn")


@dataclass(frozen=True)
class Task:
    id: str
    """The submission id (its folder's name)."""
    path: Path
    known: tuple = ()
    """(key, ExerciseResult) pairs kept by the other grading processes since this one's last
    task (grader.grading.verdicts.Shared)."""
    part: tuple[str, ...] | None = None
    """The ids of the exercises to grade (None: every one): one of the groups grade_all splits
    a submission into."""


@dataclass(frozen=True)
class Graded:
    """A grading process's answer: the submission's result and the verdicts grading it kept."""

    result: object
    """The SubmissionResult."""
    kept: tuple = ()
    """(key, ExerciseResult) pairs new to the process's Shared."""


@dataclass(frozen=True)
class Lost:
    """A submission the grader could not finish (its own fault, never the student's)."""

    reason: str
    """crash (the grading process died), limit (it ran past its time) or error (it raised)."""
    detail: str


@dataclass(frozen=True)
class Setup:
    """What every grading process needs; plain data, sent to each new process."""

    spec_paths: tuple[Path, ...]
    """The exercise.yaml files, in the course's order (specs hold code, so each process
    loads them itself)."""
    root: Path
    config: Config
    include_hidden: bool = True


def serve(conn, setup: Setup) -> None:
    """A grading process: load the specs once, then grade tasks until told to stop."""
    # Ctrl-C goes to the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Imported here, in the grading process: the parent of a pool need not pay for torch.
    from grader.grading import examples, verdicts
    from grader.grading.grade import grade
    from grader.loader import specfile
    from grader.sandbox.client import Sandbox

    examples.memory_only()  # grades read no file a worker could have written
    exercises = [specfile.load(p, setup.root) for p in setup.spec_paths]
    shared = verdicts.Shared()  # a byte-identical file of the class is graded once here
    with Sandbox().start() as sandbox:
        while True:
            try:
                task = conn.recv()
            except EOFError:
                return
            if task is None:
                return
            shared.learn(task.known)
            chosen = [e for e in exercises if task.part is None or e.id in task.part]
            try:
                result = grade(
                    submission_dir=task.path,
                    exercises=chosen,
                    config=setup.config,
                    sandbox=sandbox,
                    name=task.id,
                    include_hidden=setup.include_hidden,
                    shared=shared,
                )
            except Exception as exc:  # the grader's own failure: report it, keep serving
                conn.send(Lost("error", f"{type(exc).__name__}: {exc}"))
            else:
                conn.send(Graded(result, shared.news()))


class _Slot:
    def __init__(self, setup: Setup, target):
        self.setup, self.target = setup, target
        self.proc = self.conn = None
        self.task: Task | None = None
        self.since = 0.0
        self.heard = 0
        """How many of the batch's kept verdicts this process has been sent or has kept."""

    def start(self) -> None:
        ours, theirs = _CTX.Pipe()
        self.proc = _CTX.Process(target=self.target, args=(theirs, self.setup), daemon=True)
        self.proc.start()
        theirs.close()
        self.conn = ours

    def give(self, task: Task, kept: _Kept) -> None:
        if self.proc is None or not self.proc.is_alive():
            self.stop()
            self.start()
            self.heard = 0
        known = kept.since(self.heard, self)
        self.heard = kept.count
        self.task, self.since = task, time.monotonic()
        self.conn.send(replace(task, known=known) if known else task)

    def stop(self, kill: bool = False) -> None:
        if self.proc is None:
            return
        if not kill:
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.proc.join(10)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
        self.conn.close()
        self.proc = self.conn = None


class _Kept:
    """The verdicts the grading processes kept, in the order they came, each with the process
    that kept it; the last LIMIT of them (a process's Shared holds no more)."""

    LIMIT = 4096

    def __init__(self) -> None:
        self.items: deque = deque(maxlen=self.LIMIT)
        self.count = 0

    def add(self, pairs: tuple, slot: _Slot) -> None:
        for key, result in pairs:
            self.items.append((slot.proc, key, result))
            self.count += 1

    def since(self, heard: int, slot: _Slot) -> tuple:
        """The verdicts kept after the first `heard`, except those of the slot's process."""
        new = min(self.count - heard, len(self.items))
        items = list(self.items)[len(self.items) - new :] if new > 0 else []
        return tuple((key, result) for origin, key, result in items if origin is not slot.proc)


def grade_all(
    tasks: list[Task],
    *,
    jobs: int,
    setup: Setup,
    limit: float,
    target=serve,
    groups: list[tuple[str, ...]] | None = None,
    order: tuple[str, ...] = (),
):
    """Yield (task, SubmissionResult or Lost) as submissions finish, in finishing order.

    limit: seconds one submission may take before its process is killed. target: the function
    a grading process runs (tests replace it to make a process crash on purpose). groups: the
    exercise ids split into parts (run.groups), each submission graded part by part, a part
    going to the process that grades that part of the others where it can: each process then
    draws the examples of its own part's checks only, and meets every student's answers to
    them. A submission's parts are put back together in `order` (the course's); one that is
    lost loses the submission, as a whole one did.
    """
    parts_of: list[tuple[str, ...] | None] = list(groups or ())
    if len(parts_of) < 2:
        parts_of = [None]  # one part: the whole submission
    pending = [replace(t, part=g) for t in tasks for g in parts_of]
    slots = [_Slot(setup, target) for _ in range(max(1, min(jobs, len(pending))))]
    kept = _Kept()
    parts = _Parts(tasks, len(parts_of), order)
    try:
        while pending or any(s.task for s in slots):
            for i, slot in enumerate(slots):
                if slot.task is None and pending:
                    slot.give(_take(pending, parts_of[i % len(parts_of)]), kept)
            busy = [s for s in slots if s.task is not None]
            ready = set(
                wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=1.0)
            )
            for slot in busy:
                outcome = _outcome(slot, ready, limit)
                if isinstance(outcome, Graded):
                    kept.add(outcome.kept, slot)
                    outcome = outcome.result
                if outcome is not None:
                    part, slot.task = slot.task, None
                    whole = parts.add(part, outcome)
                    if whole is not None:
                        yield whole
    finally:
        for slot in slots:
            slot.stop(kill=slot.task is not None)


def _take(pending: list[Task], part) -> Task:
    """The first pending task of the slot's own part, else the first of any."""
    for i, task in enumerate(pending):
        if task.part == part:
            return pending.pop(i)
    return pending.pop(0)


class _Parts:
    """A submission's parts as they come back: the whole result once every part has, or the
    first Lost (the parts that come after it are dropped)."""

    def __init__(self, tasks: list[Task], count: int, order: tuple[str, ...]) -> None:
        self.tasks = {t.id: t for t in tasks}
        self.order = {e: i for i, e in enumerate(order)}
        self.count = count
        self.got: dict[str, list] = {}
        self.done: set[str] = set()

    def add(self, part: Task, outcome):
        """(task, SubmissionResult or Lost) once the submission is whole, else None."""
        if part.id in self.done:
            return None
        got = self.got.setdefault(part.id, [])
        got.append(outcome)
        if isinstance(outcome, Lost):
            whole = outcome
        elif len(got) == self.count:
            whole = got[0] if self.count == 1 else self._whole(got)
        else:
            return None
        self.done.add(part.id)
        del self.got[part.id]
        return self.tasks[part.id], whole

    def _whole(self, got: list):
        """The parts' results as one, the exercises in the course's order."""
        first = got[0]
        rows = sorted((e for r in got for e in r.exercises), key=lambda e: self.order.get(e.id, 0))
        hashes: dict = {}
        for r in got:
            hashes.update(r.environment.get("spec_hashes", {}))
        spec_hashes = {e.id: hashes[e.id] for e in rows if e.id in hashes}
        sources = {r.environment.get("seed_source") for r in got}
        environment = dict(first.environment, spec_hashes=spec_hashes)
        if len(sources) > 1:
            environment["seed_source"] = next(s for s in sources if s != "recorded")
        return replace(first, exercises=rows, environment=environment)


def _outcome(slot: _Slot, ready: set, limit: float):
    """The slot's finished result, a Lost, or None while it is still grading."""
    if slot.conn in ready or slot.proc.sentinel in ready:
        try:
            if slot.conn.poll():
                return slot.conn.recv()
        except (EOFError, OSError):
            pass
        slot.proc.join(5)
        code = slot.proc.exitcode
        slot.stop(kill=True)
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return Lost("crash", f"the grading process stopped ({how})")
    if time.monotonic() - slot.since > limit:
        slot.stop(kill=True)
        return Lost("limit", f"grading took longer than {limit:g} s")
    return None

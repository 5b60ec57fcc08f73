"""Grading: one submission, exercise by exercise, check by check, with hypothesis in charge.

`grade()` is the keyword-only API behind the command line. Every problem of the submission ends
as data in its result (a status and a message); only the grader's own input errors raise.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Iterator
from pathlib import Path

import hypothesis
import torch
from hypothesis import given
from hypothesis import seed as hseed
from hypothesis.errors import Flaky

from grader import __version__
from grader.checks import KINDS
from grader.checks.base import NotRecorded, Verdict
from grader.checks.messages import both, missing_file, overloaded, raised, tampered, undecodable
from grader.common import safetext, textform, turns
from grader.common.errors import GraderError
from grader.grading import confirm, examples, recorded, shrinks, verdicts
from grader.grading.judge import judged
from grader.grading.session import ImportFailure, Session
from grader.loader.config import Config
from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult
from grader.sandbox.client import Sandbox
from grader.sandbox.workers import SandboxError, WorkerLost
from grader.specs import strategies
from grader.specs.model import Check, Exercise, Text
from grader.specs.refs import SpecBug
from grader.submissions import answer, notebook
from grader.submissions import files as submission


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def at_once() -> int:
    """Exercises a student's command grades at once: two where there are two cores or more, so
    that one exercise's worker computes while the grader judges another's replies (the grader's
    own code runs one thread at a time, grader.common.turns, so more would add nothing).
    GRADER_AT_ONCE=1 grades one at a time."""
    if os.environ.get("GRADER_AT_ONCE", "").strip() == "1":
        return 1
    return min(2, _cores())


class Failed(Exception):
    def __init__(self, verdict: Verdict, inputs: dict):
        super().__init__(verdict.status)
        self.verdict, self.inputs = verdict, inputs


def environment(config: Config, exercises: list[Exercise]) -> dict:
    """The versions and the seed a result was graded with. seed_source says where the seed came
    from: "seed" (config.yaml's public seed), "grading_seed", "$GRADER_GRADING_SEED", "--seed",
    or "recorded" (a students' release, judged on the examples it recorded)."""
    source = config.seed_source
    if exercises and all(e.recorded is not None for e in exercises):
        source = "recorded"
    return {
        "grader": __version__,
        "torch": torch.__version__,
        "hypothesis": hypothesis.__version__,
        "python": platform.python_version(),
        "seed": config.seed,
        "seed_source": source,
        "spec_hashes": {e.id: e.spec_hash for e in exercises},
    }


def grade(
    *,
    submission_dir: Path,
    exercises: list[Exercise],
    config: Config,
    sandbox: Sandbox,
    name: str | None = None,
    include_hidden: bool = False,
    on_exercise=None,
    remember: bool = False,
    shared: verdicts.Shared | None = None,
    at_once: int = 1,
    busy=None,
) -> SubmissionResult:
    """Grade every exercise of one submission directory. remember=True (a student's own runs,
    never a grade) shows the kept verdict of an exercise whose file has not changed
    (grader.grading.verdicts) and keeps new ones on disk; `shared` (a batch process's) does the
    same in memory, for byte-identical files of the class. at_once: exercises graded at once
    (grader.common.turns; a student's commands pass at_once(), a batch process grades one at a
    time, its --jobs being processes); the result is the same either way. busy: what a
    student's terminal is told meanwhile (grader.cli.busy.Busy: examples(how), begin(id, n))."""
    torch.set_num_threads(1)  # references are small; threads only add contention (batch: jobs)
    store = shared if shared is not None else (verdicts if remember else None)
    keys = [
        verdicts.key(e, Path(submission_dir), config, include_hidden) if store else None
        for e in exercises
    ]
    kept = [store.recall(k) if store else None for k in keys]
    todo = [e for e, r in zip(exercises, kept) if r is None]
    drawer = None
    if todo:
        sandbox.warm(len(todo))
        if examples.enabled():
            draws = to_draw(todo, config, include_hidden)
            how = examples.first_run(draws) if busy is not None else None
            if how is not None:
                busy.examples(how)
            drawer = examples.Drawer.start(draws)  # a cold run: a second process draws too
            _draw_while(sandbox.starting, draws)  # the template imports torch: free time
        _read_while(sandbox.starting, todo)

    def one(exercise: Exercise) -> ExerciseResult:
        if busy is not None:
            busy.begin(exercise.id, len(todo))
        result = grade_exercise(
            exercise=exercise,
            submission_dir=Path(submission_dir),
            config=config,
            sandbox=sandbox,
            include_hidden=include_hidden,
        )
        # Everything reported passes through here: messages and source lines made safe.
        return safetext.scrub(result)

    longest = sorted(range(len(todo)), key=lambda i: -_calls(todo[i], config, include_hidden))
    try:
        graded = turns.in_order(one, todo, at_once, begin=longest)
        results = _with_kept(kept, keys, graded, store, on_exercise)
    finally:
        if drawer is not None:
            drawer.stop()
    return SubmissionResult(
        submission=safetext.name(name or Path(submission_dir).name),
        exercises=results,
        environment=environment(config, exercises),
    )


def _with_kept(kept, keys, graded: Iterator, store, on_exercise) -> list[ExerciseResult]:
    """Every exercise's result in order: its kept verdict, or the next one graded (then kept)."""
    results = []
    for key, result in zip(keys, kept):
        if result is None:
            result = next(graded)
            if store is not None:
                store.keep(key, result)
        results.append(result)
        if on_exercise:
            on_exercise(result)
    next(graded, None)  # none is left: this ends (joins) the threads that graded them
    return results


def to_draw(exercises: list[Exercise], config: Config, include_hidden: bool) -> list:
    """(exercise, check, kind, count, seed) of each check to grade, in grading order."""
    return [
        (
            e,
            c,
            KINDS[c.kind],
            c.examples or config.examples,
            strategies.seed_for(config.seed, e, c),
        )
        for e in exercises
        if e.recorded is None  # a release replays what it recorded
        for c in _visible(e, include_hidden)
        if not KINDS[c.kind].static
    ]


def _calls(exercise: Exercise, config: Config, include_hidden: bool) -> int:
    """About how many calls grading the exercise makes (its checks' examples): exercises graded
    at once begin with the longest, so that none is left to run alone at the end."""
    return sum(
        c.examples or config.examples
        for c in _visible(exercise, include_hidden)
        if not KINDS[c.kind].static
    )


def _read_while(busy, exercises: list[Exercise]) -> None:
    """Read the recorded examples of a students' release (grader.grading.recorded, kept once
    read), in grading order, while busy() says that the sandbox is not ready yet."""
    for exercise in exercises:
        if not busy():
            return
        if exercise.recorded is not None:
            try:
                recorded.load(exercise)
            except GraderError:
                pass  # its checks say so when they are graded


def _draw_while(busy, todo: list) -> None:
    """Draw examples (grader.grading.examples), in grading order, while busy() says that the sandbox
    is not ready yet."""
    for exercise, check, kind, count, seed in todo:
        if not busy():
            return
        examples.examples(exercise, check, kind, count, seed)


def shown_folder(submission_dir: Path) -> str:
    """The submission folder as a result names it: its own name, never the folders above it
    (a feedback file or a class's results must not carry the teacher's paths)."""
    return safetext.name(Path(submission_dir).absolute().name or ".")


def without_path(exc: BaseException) -> str:
    """Why a file could not be read, without the path an OSError names (the teacher's)."""
    if isinstance(exc, OSError) and exc.filename is not None:
        return exc.strerror or type(exc).__name__
    return str(exc)


def _visible(exercise: Exercise, include_hidden: bool) -> list[Check]:
    return [c for c in exercise.checks if include_hidden or not c.hidden]


def _whole(exercise, checks, status, message, traceback=(), file=None, hidden=0):
    """An exercise that could not be graded: every check scores 0 with the same reason."""
    check_status = {"missing": "skipped", "timeout": "timeout"}.get(status, "error")
    rows = [
        CheckResult(
            id=c.id,
            title=c.title,
            kind=c.kind,
            status=check_status,
            points=0.0,
            max_points=c.points,
            hint=c.hint,
            hidden=c.hidden,
            bonus=c.bonus,
        )
        for c in checks
    ]
    return ExerciseResult(
        id=exercise.id,
        title=exercise.title,
        status=status,
        checks=rows,
        message=message,
        traceback=list(traceback),
        file=file,
        hidden_checks=hidden,
    )


def grade_exercise(
    *,
    exercise: Exercise,
    submission_dir: Path,
    config: Config,
    sandbox: Sandbox,
    include_hidden: bool = False,
) -> ExerciseResult:
    """One exercise of a submission, its file a .py or a notebook (whose lines are then told as
    the notebook's cells and lines)."""
    result = _grade_exercise(exercise, submission_dir, config, sandbox, include_hidden)
    if result.file and result.file.endswith(notebook.SUFFIX):
        return _in_notebook_terms(result, exercise, Path(submission_dir) / result.file)
    return result


def _in_notebook_terms(result: ExerciseResult, exercise: Exercise, path: Path) -> ExerciseResult:
    """Tracebacks and messages that name the worker's copy (`x.py, line 30`) name the notebook
    the student has (`x.ipynb, cell 5, line 3`)."""
    try:
        source, _ = notebook.load(path)
    except (OSError, ValueError, notebook.NotebookError):
        return result
    name = path.name

    def text(t: Text | None) -> Text | None:
        if t is None:
            return None
        return Text(
            id=notebook.relocate_text(t.id, source, exercise.file, name),
            en=notebook.relocate_text(t.en, source, exercise.file, name),
        )

    def frames(lines: list[str]) -> list[str]:
        return notebook.relocate_frames(lines, source, exercise.file, name)

    for row in result.checks:
        row.message = text(row.message)
        row.traceback = frames(row.traceback)
    result.message = text(result.message)
    result.traceback = frames(result.traceback)
    return result


def _grade_exercise(
    exercise: Exercise,
    submission_dir: Path,
    config: Config,
    sandbox: Sandbox,
    include_hidden: bool = False,
) -> ExerciseResult:
    started = time.monotonic()
    checks = _visible(exercise, include_hidden)
    hidden = len(exercise.checks) - len(checks) + exercise.hidden_checks
    choice = answer.choose(submission_dir, exercise)  # <id>.py or <id>.ipynb, by one rule
    if not choice.found:
        return _whole(
            exercise,
            checks,
            "missing",
            missing_file(
                exercise.file,
                shown_folder(submission_dir),
                [safetext.name(n) for n in submission.near_misses(submission_dir, exercise.file)],
            ),
            hidden=hidden,
        )
    if choice.path is None:
        names = ", ".join(safetext.name(str(p.relative_to(submission_dir))) for p in choice.clash)
        return _whole(
            exercise,
            checks,
            "error",
            both(
                "Ada lebih dari satu jawaban {f}: {n}. Sisakan satu saja.",
                "More than one answer for {f}: {n}. Keep only one.",
                f=exercise.file,
                n=names,
            ),
            hidden=hidden,
        )
    result = _grade_file(
        exercise, choice.path, submission_dir, config, sandbox, checks, hidden, started
    )
    result.untouched = choice.untouched
    result.ignored = [
        (safetext.name(str(p.relative_to(submission_dir))), why) for p, why in choice.ignored
    ]
    return result


def _grade_file(
    exercise: Exercise,
    path: Path,
    submission_dir: Path,
    config: Config,
    sandbox: Sandbox,
    checks: list,
    hidden: int,
    started: float,
) -> ExerciseResult:
    """The exercise graded on its answer, `path` (answer.choose's)."""
    rel = safetext.name(str(path.relative_to(submission_dir)))
    try:
        source, raw = notebook.load(path)  # a .py file, or a notebook's code cells
        tree = submission.parse(source, exercise.file)
    except SyntaxError as exc:
        line = (exc.text or "").rstrip()
        return _whole(
            exercise,
            checks,
            "error",
            both(
                "SyntaxError di {f}, baris {n}: {m}",
                "SyntaxError in {f}, line {n}: {m}",
                f=exercise.file,
                n=exc.lineno,
                m=exc.msg,
            ),
            traceback=[f'File "{exercise.file}", line {exc.lineno}', f"    {line}"]
            if line
            else [],
            file=rel,
            hidden=hidden,
        )
    except submission.SourceError as exc:
        return _whole(
            exercise,
            checks,
            "error",
            undecodable(exercise.file, exc.line, exc.encoding, exc.reason),
            file=rel,
            hidden=hidden,
        )
    except notebook.NotebookError as exc:
        return _whole(
            exercise,
            checks,
            "error",
            both(
                "Notebook ini tidak bisa dibaca: {m}",
                "This notebook cannot be read: {m}",
                m=exc,
            ),
            file=rel,
            hidden=hidden,
        )
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return _whole(
            exercise,
            checks,
            "error",
            both(
                "{f} tidak bisa dibaca: {m}",
                "{f} cannot be read: {m}",
                f=exercise.file,
                m=without_path(exc),
            ),
            file=rel,
            hidden=hidden,
        )
    # Information flows from visible checks to hidden ones, never back: every visible check
    # runs (and is judged, output and all) before any hidden check's input exists, and the
    # hidden checks get a fresh worker on a fresh scratch copy, so nothing a hidden call
    # stashed (a global, a file) can reach a visible message, output or traceback.
    visible = [c for c in checks if not c.hidden]
    secret = [c for c in checks if c.hidden]
    deadline = time.monotonic() + config.time_per_exercise
    try:
        rows, hits, deadline = _phase(
            exercise, visible, tree, path, raw, submission_dir, config, sandbox, deadline, {}
        )
    except ImportFailure as failure:  # before any hidden input exists: the exercise's message
        return _import_failed(exercise, checks, failure, rel, hidden)
    apply_constraints(visible, rows)
    if secret:
        try:
            hidden_rows, _, _ = _phase(
                exercise, secret, tree, path, raw, submission_dir, config, sandbox, deadline, hits
            )
        except ImportFailure as failure:  # said on the hidden rows only, which are concealed
            _, message, traceback = _import_message(exercise, failure)
            hidden_rows = [
                CheckResult(
                    id=c.id,
                    title=c.title,
                    kind=c.kind,
                    status="timeout" if failure.kind == "timeout" else "error",
                    points=0.0,
                    max_points=c.points,
                    message=message,
                    traceback=list(traceback),
                    hint=c.hint,
                    hidden=True,
                    bonus=c.bonus,
                )
                for c in secret
            ]
        rows += hidden_rows
        apply_constraints(checks, rows, only={c.id for c in secret})
    for row in rows:  # name the hints that help with what failed
        if row.status != "passed":
            row.helpful_hints = tuple(
                i for i, h in enumerate(exercise.hints, start=1) if row.id in h.checks
            )
    order = {c.id: i for i, c in enumerate(checks)}
    rows.sort(key=lambda r: order[r.id])
    statuses = {r.status for r in rows if not r.bonus}
    status = (
        "passed" if statuses <= {"passed"} else "timeout" if "timeout" in statuses else "failed"
    )
    return ExerciseResult(
        id=exercise.id,
        title=exercise.title,
        status=status,
        checks=rows,
        file=rel,
        seconds=time.monotonic() - started,
        hidden_checks=hidden,
    )


def _phase(
    exercise, checks, tree, path, raw, submission_dir, config, sandbox, deadline, hits
) -> tuple[list[CheckResult], dict[str, set], float]:
    """Run `checks` in a worker of their own, on a scratch copy of their own; returns their
    rows, the forbidden calls the runtime trap saw (merged with `hits`, those of earlier
    phases, which static checks also judge) and the exercise's deadline (moved on by the
    grader's own time spent starting workers). Raises ImportFailure when the file will not
    import (first, or again after a worker was lost)."""
    scratch = submission.scratch_copy(path, raw, exercise.file)
    session = Session(
        sandbox,
        exercise,
        str(scratch),
        config,
        hide=hidden_paths(submission_dir),
        deadline=deadline,
    )
    try:
        session.start()
        rows = [
            run_check(session, exercise, check, config)
            for check in checks
            if not KINDS[check.kind].static
        ]
        seen = {fn: set(apis) for fn, apis in hits.items()}
        for fn, apis in session.hits.items():
            seen.setdefault(fn, set()).update(apis)
        for check in checks:
            if KINDS[check.kind].static:
                rows.append(_row(check, KINDS[check.kind].run(check, tree, seen)))
        return rows, seen, session.deadline
    finally:
        session.close()
        submission.remove(scratch)


def hidden_paths(submission_dir: Path) -> list[Path]:
    """What a worker must not see: the answer key, its own submission (it works on a scratch
    copy) and the submissions beside it (a class directory in batch mode)."""
    root = Path(__file__).resolve().parents[2]
    sub = Path(submission_dir).resolve()
    return [root / "solutions", sub, sub.parent]


def _covered(check: Check) -> set[str]:
    if check.function:
        return {check.function}
    return set(check.options.get("functions", ["*"]))


def is_constraint(check: Check) -> bool:
    """A constraint by its kind, or marked `constraint: true` in the spec."""
    return KINDS[check.kind].constraint or check.constraint


def apply_constraints(
    checks: list[Check], rows: list[CheckResult], only: set[str] | None = None
) -> None:
    """A constraint check (see Kind.constraint) earns its points only once the functions it
    covers pass a non-constraint check: a trivial answer (zeros of the right shape, say) or
    code that does not run earns nothing for having no side effects. Where none of `checks`
    covers those functions (their value checks are hidden, and these are the visible ones), it
    earns them only once some non-constraint check of the exercise passes. `only`: the ids of
    the rows that may change (the hidden ones, judged after the visible ones are final)."""
    by_id = {r.id: r for r in rows}
    _apply_bonuses(checks, by_id, only)
    achievements = [c for c in checks if not is_constraint(c)]
    anything = [c.id for c in achievements]
    for check in checks:
        row = by_id.get(check.id)
        if (
            not is_constraint(check)
            or row is None
            or row.status != "passed"
            or (only is not None and check.id not in only)
        ):
            continue
        functions = _covered(check)
        related = [
            c.id
            for c in achievements
            if "*" in functions
            or c.function in functions
            or (c.function or "").split(".")[0] in functions
        ]
        if any(by_id[i].status == "passed" for i in (related or anything) if i in by_id):
            continue
        row.status, row.points = "skipped", 0.0
        names = functions
        if "*" in functions:  # the whole file: name the functions its value checks cover
            names = {c.function for c in achievements if c.id in related and c.function}
        row.message = (
            both(
                "Belum dinilai: {f} belum lulus pemeriksaan nilai mana pun.",
                "Not awarded yet: {f} does not pass any value check yet.",
                f=", ".join(sorted(names)),
            )
            if names
            else both(
                "Belum dinilai: belum ada pemeriksaan nilai yang lulus.",
                "Not awarded yet: no value check passes yet.",
            )
        )


def _covers(check: Check, functions: set[str]) -> bool:
    """Whether a check covers any of the functions (a whole-file check covers them all)."""
    mine = _covered(check)
    return (
        "*" in mine
        or "*" in functions
        or any(f in functions or f.split(".")[0] in functions for f in mine)
    )


def _apply_bonuses(checks: list[Check], by_id: dict, only: set[str] | None) -> None:
    """A bonus is earned on top of a passing main property, never instead of it: a passed
    bonus check keeps its points only where every other (not bonus) check among `checks` of
    the functions it covers passed too (gradgradcheck on a backward that returns None while
    the backward's own checks fail earns nothing)."""
    for check in checks:
        row = by_id.get(check.id)
        if (
            not check.bonus
            or row is None
            or row.status != "passed"
            or (only is not None and check.id not in only)
        ):
            continue
        functions = _covered(check)
        failing = sorted(
            c.id
            for c in checks
            if not c.bonus
            and c.id in by_id
            and by_id[c.id].status != "passed"
            and _covers(c, functions)
        )
        if not failing:
            continue
        row.status, row.points = "skipped", 0.0
        row.message = both(
            "Bonus belum dinilai: {f} belum lulus {c}.",
            "Bonus not awarded yet: {f} does not pass {c} yet.",
            f=", ".join(sorted(functions)),
            c=", ".join(failing),
        )


def _import_failed(exercise, checks, failure: ImportFailure, rel, hidden) -> ExerciseResult:
    status, message, traceback = _import_message(exercise, failure)
    return _whole(exercise, checks, status, message, traceback=traceback, file=rel, hidden=hidden)


def _import_message(exercise, failure: ImportFailure) -> tuple[str, Text, list[str]]:
    """Why the file could not be imported: (exercise status, message, the student's lines)."""
    f = exercise.file
    if failure.kind == "timeout":
        return (
            "timeout",
            both(
                "Import {f} melebihi batas waktu (loop tak berujung di tingkat modul?).",
                "Importing {f} ran past the time limit (an endless loop at module level?).",
                f=f,
            ),
            [],
        )
    if failure.kind == "tampered":
        return "error", tampered(failure.error["names"]), []
    if failure.kind == "vanished":
        msg = both(
            "Proses berhenti saat mengimpor {f} tanpa status keluar (apakah kode itu "
            "membunuh proses induknya?).",
            "The process vanished while importing {f}, with no exit status (did the "
            "code kill its parent process?).",
            f=f,
        )
    elif failure.kind == "signal":
        msg = both(
            "Proses mati oleh sinyal {s} saat mengimpor {f} (crash).",
            "The process died by signal {s} while importing {f} (a crash).",
            s=failure.signal,
            f=f,
        )
    elif failure.kind == "memory":
        msg = both(
            "{f} kehabisan memori saat diimpor (batas per worker, termasuk proses anaknya).",
            "Importing {f} ran out of memory (the per-worker limit, its "
            "child processes included).",
            f=f,
        )
    elif failure.kind == "protocol":
        msg = both(
            "Proses pekerja mengirim data rusak saat mengimpor {f}.",
            "The worker process sent malformed data while importing {f}.",
            f=f,
        )
    elif failure.kind == "exit":
        msg = both(
            "{f} keluar saat diimpor (os._exit/exit, kode {c}). Jangan keluar dari "
            "program di tingkat modul.",
            "{f} exited while being imported (os._exit/exit, code {c}). Do not exit "
            "at module level.",
            f=f,
            c=failure.exit_code,
        )
    else:
        err = failure.error
        if err.get("type") in ("SystemExit", "KeyboardInterrupt"):
            msg = both(
                "{f} memanggil {k} saat diimpor. Jangan keluar dari program di tingkat modul.",
                "{f} raised {k} while being imported. Do not exit at module level.",
                f=f,
                k=err["type"],
            )
        else:
            msg = raised(err, f"import {f}", "import")
    return "error", msg, list(failure.error.get("traceback", ()))


def counterexample(check: Check, inputs: dict | None) -> str | None:
    """The failing example as the check's kind shows it (a scenario adds the setup that built
    the objects its function ran on)."""
    kind = KINDS.get(check.kind)
    return kind.counterexample(check, inputs) if kind else textform.counterexample(check, inputs)


def _row(
    check: Check,
    verdict: Verdict | None,
    counter: str | None = None,
    output: tuple[str, int] = ("", 0),
) -> CheckResult:
    if verdict is None:
        return CheckResult(
            id=check.id,
            title=check.title,
            kind=check.kind,
            status="passed",
            points=check.points,
            max_points=check.points,
            hidden=check.hidden,
            bonus=check.bonus,
        )
    return CheckResult(
        id=check.id,
        title=check.title,
        kind=check.kind,
        status=verdict.status,
        points=0.0,
        max_points=check.points,
        message=verdict.message,
        counterexample=counter,
        hint=verdict.hint or check.hint,
        traceback=verdict.traceback,
        hidden=check.hidden,
        bonus=check.bonus,
        cause=verdict.cause,
        output=output[0] or None,
        output_cut=output[1],
    )


def replayed(session: Session, exercise: Exercise, check: Check, kind, drawn) -> int:
    """How many of the check's drawn examples (grader.grading.examples) pass, in order, before the
    first that fails (all of them: the check passes)."""
    copies = [drawn.example(i) for i in range(len(drawn.inputs))]
    for i, reply, values in session.stream(check, kind, copies):
        try:
            if judged(exercise, check, kind, copies[i], reply, values, drawn.memo[i]):
                return i
        except SpecBug:  # hypothesis shrinks it and says so, as without replay
            return i
    return len(copies)


def run_check(
    session: Session, exercise: Exercise, check: Check, config: Config, retried: bool = False
) -> CheckResult:
    if exercise.recorded is not None:
        return run_recorded(session, exercise, check, config)
    kind = KINDS[check.kind]
    last: dict = {}
    seed = strategies.seed_for(config.seed, exercise, check)
    count = check.examples or config.examples
    drawn = examples.examples(exercise, check, kind, count, seed) if examples.enabled() else None
    passed = {"known": 0, "calls": 0}
    made: list[shrinks.Made] = []
    """Every call of the property so far, in order (grader.grading.shrinks)."""

    def call(inputs, memo: dict | None, kept: dict | None = None):
        """One call of the property, made once: a call already made in this grading (by the
        walk of the tree) gives again what it gave. kept: a copy of the inputs as drawn."""
        index = passed["calls"]
        passed["calls"] += 1
        if index < len(made):
            if examples.same(inputs, made[index].inputs):
                return _again(made[index], last)
            del made[index:]  # not the sequence the tree said: this run is not kept
            passed["astray"] = 1
        if kept is None:  # (only a tree keeps it: without replay there is none)
            kept = inputs if drawn is None else examples.copied(inputs)
        made.append(this := shrinks.Made(kept, {} if memo is None else memo))
        if index < passed["known"] and examples.same(inputs, drawn.inputs[index]):
            this.outcome = shrinks.PASSED  # replay saw this very example pass
            return
        try:
            reply, values = session.call(check, kind, inputs)
            verdict = judged(exercise, check, kind, inputs, reply, values, this.memo)
        except Exception as exc:
            this.raised = exc
            raise
        if verdict is None:
            this.outcome = shrinks.PASSED
            return
        this.outcome, this.raised = shrinks.FAILED, Failed(verdict, inputs)
        last["failure"] = this.raised
        last.setdefault("first", inputs)
        raise this.raised

    def prop(inputs):
        call(inputs, None)

    def outcome(step: shrinks.Step) -> str:
        """The call of a step of the tree, as the property makes it."""
        try:
            call(examples.copied(step.inputs), step.memo, step.inputs)
        except Failed:
            return shrinks.FAILED
        except Exception:
            return shrinks.OTHER  # hypothesis meets it again, in its place
        return shrinks.PASSED

    test = given(kind.strategy(exercise, check))(prop)
    test = strategies.profile(count)(test)
    test = hseed(seed)(test)
    try:
        if drawn is not None:
            try:
                passed["known"] = replayed(session, exercise, check, kind, drawn)
            finally:
                examples.save(drawn)
            if passed["known"] == len(drawn.inputs):
                return _row(check, None)
            if shrinks.walk(drawn.runs, outcome):
                raise last["failure"]
            passed["calls"] = 0
        # A failure: hypothesis draws the same examples, meets it and shrinks it.
        try:
            test()
        except Failed as failure:
            if drawn is not None and not passed.get("astray") and failure is made[-1].raised:
                shrinks.add(drawn, made)
            raise
    except Failed as failure:
        output = session.last_output  # what the failing call printed, before confirm's calls
        verdict = confirm.confirmed(
            session=session,
            exercise=exercise,
            check=check,
            kind=kind,
            verdict=failure.verdict,
            shrunk=failure.inputs,
            first=last.get("first"),
            seed=seed,
        )
        return _row(check, verdict, counterexample(check, failure.inputs), output)
    except WorkerLost as lost:
        if lost.kind == "exercise_timeout" and "failure" in last:
            failure = last["failure"]
            return _row(check, failure.verdict, counterexample(check, failure.inputs))
        return _lost_row(
            session,
            check,
            config,
            lost,
            None
            if retried
            else (lambda: run_check(session, exercise, check, config, retried=True)),
        )
    except SpecBug as bug:
        return _row(check, _grader_error(bug))
    except Flaky:
        failure = last.get("failure")
        verdict = Verdict(
            "failed",
            both(
                "Hasil berubah-ubah untuk input yang sama (tidak deterministik). {m}",
                "Results differ between calls with the same input (not deterministic). {m}",
                m=failure.verdict.message if failure else "",
            ),
        )
        return _row(check, verdict, counterexample(check, failure.inputs) if failure else None)
    except SandboxError as exc:
        return _row(check, _grader_error(exc))
    return _row(check, None)


def _again(made: shrinks.Made, last: dict):
    """What a call already made gave, given again (and the failures it recorded)."""
    if made.outcome == shrinks.PASSED:
        return
    if isinstance(made.raised, Failed):
        last["failure"] = made.raised
        last.setdefault("first", made.raised.inputs)
    raise made.raised


def run_recorded(
    session: Session, exercise: Exercise, check: Check, config: Config, retried: bool = False
) -> CheckResult:
    """A check of a students' release, judged on its recorded examples (grader.grading.recorded), in
    their order (smallest first): the first failing one is reported, and a mistake is named only
    where the next failing ones (up to confirm.FRESH) confirm it."""
    kind = KINDS[check.kind]
    try:
        drawn = recorded.load(exercise).checks[check.id]
    except GraderError as exc:
        return _row(check, _grader_error(exc))
    copies = [drawn.example(i) for i in range(len(drawn.inputs))]
    failures: list[tuple[int, Verdict, dict, dict]] = []
    try:
        for i, reply, values in session.stream(check, kind, copies):
            verdict = judged(
                exercise, check, kind, copies[i], reply, values, drawn.memo[i], recorded=True
            )
            if verdict is not None:
                failures.append((i, verdict, reply, values))
                if len(failures) > confirm.FRESH:
                    break
        if not failures:
            return _row(check, None)
        first = failures[0][0]
        inputs = drawn.example(first)  # again, alone, for what it prints (as hypothesis would)
        reply, values = session.call(check, kind, inputs)
        output = session.last_output
        verdict = (
            judged(exercise, check, kind, inputs, reply, values, drawn.memo[first], recorded=True)
            or failures[0][1]
        )
        verdict = confirm.recorded(
            exercise=exercise,
            check=check,
            kind=kind,
            verdict=verdict,
            first=(inputs, drawn.memo[first], reply, values),
            others=[(copies[i], drawn.memo[i], r, v) for i, _, r, v in failures[1:]],
        )
        return _row(check, verdict, counterexample(check, drawn.inputs[first]), output)
    except WorkerLost as lost:
        if failures:  # a smaller example already failed: that is the one to tell
            i, verdict = failures[0][:2]
            return _row(check, verdict, counterexample(check, drawn.inputs[i]))
        return _lost_row(
            session,
            check,
            config,
            lost,
            None
            if retried
            else (lambda: run_recorded(session, exercise, check, config, retried=True)),
        )
    except (SpecBug, NotRecorded) as bug:
        return _row(check, _grader_error(f"{type(bug).__name__}: {bug}"))
    except SandboxError as exc:
        return _row(check, _grader_error(exc))


def _grader_error(what) -> Verdict:
    return Verdict(
        "error",
        both(
            "Kesalahan grader (bukan salahmu): {e}", "Grader error (not your fault): {e}", e=what
        ),
    )


def _lost_row(
    session: Session, check: Check, config: Config, lost: WorkerLost, again
) -> CheckResult:
    """The row of a check whose worker was lost on the call in flight. A call that was
    runnable but kept off the CPU by other processes, to the end of the extra wall time it was
    given (Worker.receive), is not the student's timeout: again() grades the check once more in
    a fresh worker (None: that was the second time), and a second starvation names the
    machine, never the student."""
    shown = counterexample(check, session.in_flight) if session.in_flight else None
    if lost.kind == "timeout" and lost.starved:
        if again is not None:
            return again()
        return _row(
            check,
            Verdict("error", overloaded(check.function, config.time_per_call), cause="overloaded"),
            shown,
        )
    return _row(check, _lost_verdict(lost, check, config), shown, session.last_output)


def _lost_verdict(lost: WorkerLost, check: Check, config: Config) -> Verdict:
    fn = check.function
    if lost.kind == "timeout":
        return Verdict(
            "timeout",
            both(
                "{fn} melebihi batas waktu {t:g} detik per panggilan (loop tak berujung, atau "
                "terlalu lambat).",
                "{fn} ran past the limit of {t:g} s per call (an endless loop, or too slow).",
                fn=fn,
                t=config.time_per_call,
            ),
        )
    if lost.kind == "exercise_timeout":
        return Verdict(
            "timeout",
            both(
                "Waktu untuk latihan ini ({t:g} detik) habis sebelum pemeriksaan ini selesai.",
                "The time for this exercise ({t:g} s) ran out before this check finished.",
                t=config.time_per_exercise,
            ),
        )
    if lost.kind == "signal":
        return Verdict(
            "error",
            both(
                "Proses mati oleh sinyal {s} saat menjalankan {fn} (crash).",
                "The process died by signal {s} while running {fn} (a crash).",
                s=lost.signal,
                fn=fn,
            ),
        )
    if lost.kind == "vanished":
        return Verdict(
            "error",
            both(
                "Proses berhenti saat menjalankan {fn} tanpa status keluar (apakah kode itu membunuh "
                "proses induknya?).",
                "The process vanished while running {fn}, with no exit status (did the code kill "
                "its parent process?).",
                fn=fn,
            ),
        )
    if lost.kind == "memory":
        return Verdict(
            "error",
            both(
                "{fn} kehabisan memori (batas per worker, termasuk proses anaknya).",
                "{fn} ran out of memory (the per-worker limit, its child processes included).",
                fn=fn,
            ),
        )
    if lost.kind == "protocol":
        return Verdict(
            "error",
            both(
                "Proses pekerja mengirim data rusak saat menjalankan {fn}.",
                "The worker process sent malformed data while running {fn}.",
                fn=fn,
            ),
        )
    return Verdict(
        "error",
        both(
            "{fn} menghentikan proses (exit, kode {c}). Jangan memanggil exit di dalam fungsi.",
            "{fn} ended the process (exit, code {c}). Do not call exit inside a function.",
            fn=fn,
            c=lost.exit_code,
        ),
    )

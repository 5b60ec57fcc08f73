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

from grader import __version__
from grader.checks import KINDS
from grader.checks.messages import both, missing_file, undecodable
from grader.common import safetext, turns
from grader.common.errors import GraderError
from grader.grading import examples, recorded, verdicts
from grader.grading.checkrun import (  # noqa: F401 (the API callers import from here)
    counterexample,
    replayed,
    run_check,
    run_recorded,
)
from grader.grading.checkrun import (
    row as row_of,
)
from grader.grading.constraints import apply_constraints, is_constraint  # noqa: F401
from grader.grading.importfail import import_message
from grader.grading.session import ImportFailure, Session
from grader.loader.config import Config
from grader.outcomes import levels, stated
from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult
from grader.sandbox.client import Sandbox
from grader.specs import strategies
from grader.specs.model import Check, CheckHint, Exercise, Text
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
    where = Path(submission_dir)
    choices = [answer.choose(where, e) if store else None for e in exercises]
    keys = [
        verdicts.key(e, where, config, include_hidden, c) if c else None
        for e, c in zip(exercises, choices)
    ]
    kept = [
        verdicts.placed(store.recall(k), c, where) if c and store else None
        for k, c in zip(keys, choices)
    ]
    todo = [e for e, r in zip(exercises, kept) if r is None]
    drawer = None
    if todo:
        sandbox.warm(len(todo), at_once, owner=str(Path(submission_dir).resolve()))
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

    longest = sorted(
        range(len(todo)), key=lambda i: -expected_calls(todo[i], config, include_hidden)
    )
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


def expected_calls(exercise: Exercise, config: Config, include_hidden: bool) -> int:
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
            hint=None if isinstance(c.hint, CheckHint) else c.hint,  # (its premise: unread)
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
    result = levels.hold(
        _grade_exercise(exercise, submission_dir, config, sandbox, include_hidden),
        config.feedback_for(exercise),
    )
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
            _, message, traceback = import_message(exercise, failure)
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
    by_id = {c.id: c for c in checks}
    for row in rows:  # name the hints that help with what failed
        if isinstance(row.hint, CheckHint):  # shown only where its premise holds
            code = _code(tree, by_id[row.id].function if row.id in by_id else None)
            holds = row.hint.holds(code, row.cause, row.mistake)
            row.hint = row.hint.text() if holds else None
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


def _code(tree, function: str | None = None) -> str:
    """The code a hint's premise reads: the check's function where the file defines it (its
    last definition; a method by its name), else the whole file; no comments, no docstrings (a
    starter's docstring that says dim=-1 is not code that uses it), one layout."""
    import ast
    import copy

    name = (function or "").split(".")[-1]
    defined = [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name
    ]
    tree = copy.deepcopy(defined[-1] if defined else tree)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            node.body = [
                n
                for n in body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
            ] or [ast.Pass()]
    try:
        return ast.unparse(tree)
    except (ValueError, RecursionError):
        return ""


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
        owner=str(Path(submission_dir).resolve()),
    )
    ended = False
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
                rows.append(row_of(check, KINDS[check.kind].run(check, tree, seen)))
        ended = True
        return stated.named(exercise, rows), seen, session.deadline
    finally:
        # A portable worker may serve the submission's next exercise (sandbox.worker.leftovers),
        # never after a hidden check (what it saw must not reach a visible message).
        session.close(reuse=ended and not any(c.hidden for c in checks))
        submission.remove(scratch)


def hidden_paths(submission_dir: Path) -> list[Path]:
    """What a worker must not see: the answer key, its own submission (it works on a scratch
    copy) and the submissions beside it (a class directory in batch mode)."""
    root = Path(__file__).resolve().parents[2]
    sub = Path(submission_dir).resolve()
    return [root / "solutions", sub, sub.parent]


def _import_failed(exercise, checks, failure: ImportFailure, rel, hidden) -> ExerciseResult:
    status, message, traceback = import_message(exercise, failure)
    return _whole(exercise, checks, status, message, traceback=traceback, file=rel, hidden=hidden)

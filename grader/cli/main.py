"""The command line: parsing, exit codes and printing; the work is in grading and validate.

Exit codes: 0 everything has full marks (or the command succeeded), 1 some exercise lost points
(or validate found a miss, or batch could not grade a submission), 2 a usage, config or spec
error (one message naming the file, line and key; never a traceback), 3 a bug in the grader
(its traceback, then "please report" with the versions), 130 interrupted.
"""

from __future__ import annotations

import atexit
import os
import sys
import traceback
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grader.cli import early, teacher
from grader.cli.parser import ROOT, parser, select
from grader.common.errors import GraderError, bug_report
from grader.loader import config as config_mod
from grader.loader import specfile
from grader.report import jsonout, terminal

USAGE, BUG = 2, 3
"""Exit codes besides 0 and 1: a usage, config or spec error; a bug in the grader itself."""


def _new(args, console) -> int:
    from grader.authoring import scaffold

    root = Path(args.exercises_dir).resolve().parent
    for path in scaffold.create(root=root, exercise_id=args.id, kind=args.kind):
        console.print(f"created {escape(str(path.relative_to(root)))}")
    console.print(
        f"next: edit the TODOs, then `python -m grader validate {args.id}` (docs/authoring.md)"
    )
    return 0


class _Console(Console):
    def on_broken_pipe(self) -> None:  # rich would exit 1, which here means "lost points"
        raise BrokenPipeError

    def _render_buffer(self, buffer) -> str:
        """Rich pads table and wrapped lines to the width; piped (a file, CI, a pager) no
        line ends in spaces."""
        text = super()._render_buffer(buffer)
        if self.is_terminal:
            return text
        return "\n".join(line.rstrip() for line in text.split("\n"))


def _own_copy(args) -> Path:
    """What the student's own commands grade: the working copy that holds exercises/ (its
    notebooks/ too: an answer may be either, grader.submissions.answer), or a folder of
    exercises given as --exercises-dir under another name."""
    folder = Path(args.exercises_dir)
    return folder.parent if folder.name == "exercises" else folder


def _locate_project(args) -> None:
    """Default --exercises-dir and --config from the working copy the command runs in."""
    from grader.cli.workingcopy import find_root

    if args.exercises_dir is not None:
        return
    root = find_root(Path.cwd()) or ROOT
    args.exercises_dir = root / "exercises"
    if args.config is None and (root / "config.yaml").is_file():
        args.config = root / "config.yaml"


TORCH_CACHES = {"TORCHINDUCTOR_CACHE_DIR": "torchinductor", "TRITON_CACHE_DIR": "triton"}
"""Caches torch makes in the machine's temporary folder when none is set: importing
torch._dynamo (torch.optim does, in a reference's training step) creates
/tmp/torchinductor_<user>. The command's own process, and the grading processes it starts, get
a folder of the command's instead, removed when it ends (workers get theirs from the sandbox)."""


def _own_torch_caches() -> str | None:
    """Point the unset TORCH_CACHES variables into a fresh folder; returns it (None: all set)."""
    unset = [var for var in TORCH_CACHES if not os.environ.get(var)]
    if not unset:
        return None
    import tempfile

    folder = tempfile.mkdtemp(prefix="grader-torch-")
    for var in unset:
        os.environ[var] = os.path.join(folder, TORCH_CACHES[var])
    return folder


def _drop_torch_caches(folder: str | None) -> None:
    if folder is None:
        return
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    for var, name in TORCH_CACHES.items():
        if os.environ.get(var) == os.path.join(folder, name):
            del os.environ[var]


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    console = _Console(highlight=False)
    err = Console(stderr=True, highlight=False, soft_wrap=not sys.stderr.isatty())
    sandbox = busy = None
    caches = _own_torch_caches()
    try:
        _locate_project(args)
        if args.command == "new":
            return _new(args, console)
        if args.command in (None, "check", "watch"):  # a line: what it does while it grades
            busy = _busy(args, console)
        if args.command is None or args.command in early.GRADING:
            from grader.sandbox.client import Sandbox  # imports no torch: the template does

            # Started before the grader imports torch and loads the specs, so that the
            # template imports torch meanwhile on another core (a first run waited 2 s for it).
            # When every verdict is kept, it is ended unused (grader.grading.verdicts).
            sandbox = early.take() or Sandbox().start()
        code = _run(args, console, sandbox, busy)
        sys.stdout.flush()  # a closed pipe shows here, not in Python's flush at exit
        return code
    except GraderError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}", soft_wrap=True)
        return USAGE
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        return 130
    except BrokenPipeError:  # the reader of our output went away (`| head`): stop quietly
        _silence_stdout()
        return 141
    except OSError as exc:
        if exc.filename is None:
            return _bug(err)
        # The machine's files, not the grader: a folder that cannot be written, a full disk.
        err.print(
            f"[red]error:[/] {escape(str(exc.filename))}: {escape(exc.strerror or str(exc))}",
            soft_wrap=True,
        )
        return USAGE
    except Exception:
        return _bug(err)
    finally:
        if busy is not None:
            busy.stop()
        if sandbox is not None:
            sandbox.close()
        _drop_torch_caches(caches)


def _busy(args, console):
    """The student's line on a terminal, started first of all (grader.cli.busy), in the
    report's language (config.yaml's, read again by _run, where its errors are said)."""
    from grader.cli.busy import Busy, terminal

    lang = getattr(args, "lang", None)
    if lang is None:
        try:
            lang = config_mod.load_or_default(args.config).language
        except GraderError:
            lang = "en"
    return Busy(terminal(console, Console(stderr=True)), lang).__enter__()


def _run(args, console, sandbox, busy=None) -> int:
    config = config_mod.load_or_default(args.config)
    if args.command == "merge":  # reads results only: a merge job need not install torch
        return teacher.merge(args, config, console)
    lang = getattr(args, "lang", None) or config.language
    # The course's topics: --config's where it names them, else the course's config.yaml's.
    topics = config.topic_ids if config.topics is not None else None
    exercises = specfile.discover(args.exercises_dir, root=ROOT, topics=topics)
    if args.command is None:
        return _course(args, config, lang, exercises, sandbox, console, busy)
    if args.command == "check":
        return _check(args, config, lang, exercises, sandbox, console, busy)
    if args.command == "list":
        return _list(exercises, lang, console)
    if args.command == "watch":
        return _watch(args, config, lang, exercises, sandbox, console, busy)
    if args.command == "hint":
        from grader.cli.student import show_hint

        show_hint(
            select(exercises, [args.id])[0],
            lang,
            console,
            args.exercises_dir.parent,
            all_seen=args.all,
            reset=args.reset,
        )
        return 0
    if args.command in TEACHERS:
        _teachers_copy(exercises, args.command)
    if args.command == "validate":
        from grader.cli.validating import validate

        # Audited as the class is graded: hidden checks and the grading seed (the release's
        # own check proves the keys and starters on the public seed's recorded examples).
        grading = teacher.grading_config(config, None, console)
        chosen = select(exercises, args.ids)
        return validate(args, config, grading, chosen, sandbox, console, lang)
    if args.command == "draw":
        return teacher.draw(args, config, exercises, sandbox, console)
    if args.command == "batch":
        return teacher.batch(args, config, lang, exercises, console)
    if args.command == "release":
        return teacher.release(args, exercises, console)
    if args.command == "gradescope":
        return teacher.gradescope(args, exercises, console)
    return USAGE


TEACHERS = ("validate", "draw", "batch", "release", "gradescope")
"""Commands that need the teacher's specs: their references, hidden checks and grading seed."""


def _teachers_copy(exercises, command: str) -> None:
    """Refuse a teacher's command in a students' release, whose specs grade from recorded
    examples (no reference code, no hidden check): it would grade on what students saw."""
    copied = [e for e in exercises if e.recorded is not None]
    if copied:
        raise GraderError(
            f"{command} needs the teacher's repository: "
            f"exercises/{copied[0].id}/exercise.yaml is a students' copy (it grades "
            "from recorded examples, without reference code or hidden checks). Run "
            f"`python -m grader {command}` in the course's own repository"
        )


def _bug(err) -> int:
    """A bug in the grader itself: the one case that shows the grader's traceback."""
    err.print(traceback.format_exc().rstrip(), markup=False, highlight=False, soft_wrap=True)
    err.print(f"[red]{escape(bug_report())}[/]", soft_wrap=True)
    return BUG


def run() -> NoReturn:
    """`python -m grader` and the `grader` script (through grader.cli.entry): main(), then
    leave()."""
    try:
        code = main()
    finally:
        early.close()  # started for a command that did not take it (--help, a usage error)
    leave(code)


def leave(code: int) -> NoReturn:
    """Exit with `code` as Python's own exit would, without tearing its modules down (torch's
    teardown took half a second of every command): the exit functions run (temporary folders,
    logging), the streams are flushed, and the process ends. Every worker and the template
    have ended before (main's `finally`); the grader's own threads are daemons."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader gone away: nothing more to say to it
            if stream is sys.stdout:
                _silence_stdout()
    os._exit(code)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's final flush does not complain again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _directory(path: Path, what: str) -> Path:
    """A submission folder given on the command line, or a usage error that says what is wrong."""
    if path.is_file():
        raise GraderError(
            f"{what} {path} is a file, not a folder; give the folder that holds "
            f"the exercise files (e.g. {path.parent or '.'})"
        )
    if not path.is_dir():
        raise GraderError(f"{what} not found: {path}")
    return path


def _json_target(path: Path | None) -> Path | None:
    """Where --json writes: its folder is created, and a path that cannot be a file is refused
    before anything is graded."""
    if path is None:
        return None
    if path.is_dir():
        raise GraderError(
            f"--json {path} is a folder; give a file name such as {path / 'result.json'}"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GraderError(
            f"--json {path}: cannot create its folder {path.parent}: {exc.strerror or exc}"
        ) from None
    return path


def _course(args, config, lang, exercises, sandbox, console, busy=None) -> int:
    """No command: grade the working copy and show the course view."""
    from grader.cli.student import show_course

    if not args.exercises_dir.is_dir():
        raise GraderError(f"exercises directory not found: {args.exercises_dir}")
    other = getattr(args, "submission", None)
    directory = _directory(other, "submission directory") if other else _own_copy(args)
    result = show_course(
        directory=directory,
        exercises=exercises,
        config=config,
        sandbox=sandbox,
        lang=lang,
        console=console,
        state_root=None if other else args.exercises_dir.parent,
        remember=not getattr(args, "fresh", False),
        busy=busy,
    )
    return 0 if result.full_marks else 1


def _check(args, config, lang, exercises, sandbox, console, busy=None) -> int:
    from grader.grading.grade import at_once, grade

    chosen = select(exercises, getattr(args, "ids", None))
    if args.only:
        from grader.cli.student import only_checks

        chosen = only_checks(chosen, args.only)
    submission = _directory(
        getattr(args, "submission", None) or _own_copy(args), "submission directory"
    )
    json_path = _json_target(getattr(args, "json", None))
    from grader.cli import student
    from grader.cli.hints import Progress

    # The student's own copy counts its failed runs and opens kept-back hints (grader.cli.hints)
    progress = (
        None if getattr(args, "submission", None) else Progress.of(args.exercises_dir.parent)
    )

    def shown(e):
        if progress is None:
            return e
        progress.record(e)
        return student.seen(e, progress, config, chosen)

    result = grade(
        submission_dir=submission,
        exercises=chosen,
        config=config,
        sandbox=sandbox,
        remember=not getattr(args, "fresh", False),
        on_exercise=lambda e: console.print(terminal.exercise_panel(shown(e), lang)),
        at_once=at_once(),
        busy=busy,
    )
    if progress is not None:
        progress.save()
    if busy is not None:
        busy.stop()
    if args.plot is not None:
        _plot(args, result, chosen, submission, config, sandbox, lang, console)
    terminal.render_total(result, lang, console, only=bool(args.only))
    if json_path is not None:
        jsonout.write(json_path, result, lang)
    if getattr(args, "feedback", None):
        from grader.report import feedback

        feedback.write_one(args.feedback, result, lang)
    return 0 if result.full_marks else 1


def _plot(args, result, chosen, submission, config, sandbox, lang, console) -> None:
    from grader.grading import plot

    pictures = plot.draw_failed(
        result=result,
        exercises=chosen,
        submission_dir=submission,
        config=config,
        sandbox=sandbox,
        out=args.plot,
        lang=lang,
    )
    label = "Gambar" if lang == "id" else "Plot"
    for pic in pictures:
        console.print(
            f"{label} {pic.exercise}.{pic.check}: {escape(str(pic.path))}", soft_wrap=True
        )


def _watch(args, config, lang, exercises, sandbox, console, busy=None) -> int:
    from grader.cli.student import watch_course

    chosen = select(exercises, args.ids)
    directory = _directory(args.submission or _own_copy(args), "submission directory")
    try:
        watch_course(
            directory=directory,
            exercises=chosen,
            config=config,
            sandbox=sandbox,
            lang=lang,
            console=console,
            state_root=None if args.submission else directory.parent,
            busy=busy,
        )
    except KeyboardInterrupt:
        pass
    return 0


def _list(exercises, lang, console) -> int:
    columns = {"id": ("id", "judul", "poin", "topik"), "en": ("id", "title", "points", "topics")}
    table = Table(title="Latihan" if lang == "id" else "Exercises")
    for col in columns.get(lang, columns["en"]):
        table.add_column(col)
    for e in exercises:
        table.add_row(
            e.id, escape(e.title.get(lang)), f"{e.max_points:g}", escape(", ".join(e.topics))
        )
    console.print(table)
    return 0


if __name__ == "__main__":
    run()

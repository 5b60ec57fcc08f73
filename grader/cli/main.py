"""The command line: parsing, exit codes and printing; the work is in grading and validate.

Exit codes: 0 everything has full marks (or the command succeeded), 1 some exercise lost points
(or validate found a miss, or batch could not grade a submission), 2 a usage, config or spec
error (one message naming the file, line and key; never a traceback), 3 a bug in the grader
(its traceback, then "please report" with the versions), 130 interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import traceback
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from grader import __version__
from grader.common.errors import GraderError, bug_report
from grader.loader import config as config_mod
from grader.loader import specfile
from grader.report import jsonout, terminal

ROOT = Path(__file__).resolve().parents[2]
USAGE, BUG = 2, 3
"""Exit codes besides 0 and 1: a usage, config or spec error; a bug in the grader itself."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m grader", description="Grade PyTorch autograd exercises."
    )
    p.add_argument("--version", action="version", version=f"grader {__version__}")
    p.add_argument("--config", type=Path, help="config file (default: config.yaml)")
    p.add_argument(
        "--exercises-dir",
        type=Path,
        help="where the exercise specs are (default: exercises/ of the working copy you are in)",
    )
    p.add_argument(
        "--submission",
        type=Path,
        help="the course view of another folder (default: exercises/, your working copy)",
    )
    sub = p.add_subparsers(dest="command")
    check = sub.add_parser("check", help="grade exercises of one submission")
    check.add_argument("ids", nargs="*", metavar="ID", help="exercise ids (default: all)")
    check.add_argument(
        "--submission",
        type=Path,
        help="submission directory (default: exercises/, your working copy)",
    )
    check.add_argument("--json", type=Path, metavar="FILE", help="also write grader-result/1 JSON")
    check.add_argument(
        "--feedback",
        type=Path,
        metavar="FILE",
        help='also write the feedback as Markdown (e.g. "$GITHUB_STEP_SUMMARY")',
    )
    check.add_argument(
        "--only",
        nargs="+",
        metavar="CHECK_ID",
        help="run only these checks (ids as in the report)",
    )
    check.add_argument(
        "--plot",
        nargs="?",
        type=Path,
        const=Path("grader-plots"),
        metavar="DIR",
        help="draw failed elementwise functions as PNGs in DIR "
        "(default: grader-plots/; needs matplotlib)",
    )
    for q in (check, p):
        q.add_argument("--lang", choices=config_mod.LANGUAGES, help="language of the report")
        q.add_argument(
            "--fresh",
            action="store_true",
            default=argparse.SUPPRESS,
            help="grade every exercise again, even those whose file has not "
            "changed since the last run",
        )
    lst = sub.add_parser("list", help="list the exercises")
    lst.add_argument("--lang", choices=config_mod.LANGUAGES)
    hint = sub.add_parser("hint", help="show the next hint of an exercise (one at a time)")
    hint.add_argument("id")
    hint.add_argument(
        "--all", action="store_true", help="the instructions and every hint shown so far"
    )
    hint.add_argument("--reset", action="store_true", help="start the hints again")
    hint.add_argument("--lang", choices=config_mod.LANGUAGES)
    wat = sub.add_parser("watch", help="re-grade an exercise each time you save its file")
    wat.add_argument("ids", nargs="*", metavar="ID", help="exercise ids (default: all)")
    wat.add_argument("--submission", type=Path, help="directory to watch (default: exercises/)")
    wat.add_argument("--lang", choices=config_mod.LANGUAGES)
    val = sub.add_parser("validate", help="check that answers pass and mutants fail")
    val.add_argument("ids", nargs="*", metavar="ID")
    val.add_argument("--solutions", type=Path, default=ROOT / "solutions")
    val.add_argument("--lang", choices=config_mod.LANGUAGES)
    drw = sub.add_parser(
        "draw",
        help="write each exercise's examples into the course (exercises/ID/examples.drawn), "
        "so that a fresh clone's first check need not draw them",
    )
    drw.add_argument("ids", nargs="*", metavar="ID")
    drw.add_argument("--solutions", type=Path, default=ROOT / "solutions")
    bat = sub.add_parser("batch", help="grade every submission of a class (teachers)")
    bat.add_argument("dir", type=Path, metavar="DIR", help="one subdirectory per submission")
    bat.add_argument("--out", type=Path, required=True, help="folder for the outputs")
    bat.add_argument(
        "--jobs", type=int, metavar="N", help="submissions graded at once (default: the CPU cores)"
    )
    bat.add_argument("--shard", metavar="K/N", help="grade only shard K of N (a CI matrix job)")
    bat.add_argument("--exercises", nargs="+", metavar="ID", help="exercise ids (default: all)")
    bat.add_argument(
        "--gradebook",
        type=Path,
        metavar="FILE",
        help="SQLite gradebook to record the run in (default: config gradebook)",
    )
    bat.add_argument(
        "--seed",
        type=int,
        help="hypothesis seed (default: $GRADER_GRADING_SEED, "
        "else the config's grading_seed, else its public seed)",
    )
    bat.add_argument(
        "--deadline",
        metavar="WHEN",
        help="grade each git repository as of this time, e.g. 2026-12-10T23:59+07:00 "
        "(default: the config's deadline; late_policy says what later commits do)",
    )
    bat.add_argument("--lang", choices=config_mod.LANGUAGES)
    bat.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the class's roster CSV (GitHub Classroom's, or login,name,email,lms_id): "
        "names and LMS identifiers in every output",
    )
    new = sub.add_parser("new", help="scaffold a new exercise (teachers; see docs/authoring.md)")
    new.add_argument("id", help="the new exercise's id, e.g. retain_graph_twice")
    new.add_argument(
        "--kind",
        choices=("value", "scenario"),
        default="value",
        help="the template's first check kind (default: value)",
    )
    mer = sub.add_parser("merge", help="combine the output folders of batch shards")
    mer.add_argument("folders", nargs="+", type=Path, metavar="OUT_K")
    mer.add_argument("--out", type=Path, required=True, help="folder for the merged outputs")
    mer.add_argument(
        "--gradebook",
        type=Path,
        metavar="FILE",
        help="SQLite gradebook to record the run in (default: config gradebook)",
    )
    mer.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the class's roster CSV (GitHub Classroom's, or login,name,email,lms_id): "
        "names and LMS identifiers in every output",
    )
    rel = sub.add_parser("release", help="write the students' repository (teachers)")
    rel.add_argument(
        "out", type=Path, metavar="OUT", help="a new or empty folder outside the project"
    )
    rel.add_argument("--exercises", nargs="+", metavar="ID", help="exercise ids (default: all)")
    rel.add_argument(
        "--force", action="store_true", help="replace what OUT holds (its .git is kept)"
    )
    gsc = sub.add_parser("gradescope", help="write the Gradescope autograder zip (teachers)")
    gsc.add_argument("zip", type=Path, metavar="ZIP", help="e.g. autograder.zip")
    gsc.add_argument("--exercises", nargs="+", metavar="ID", help="exercise ids (default: all)")
    return p


def _select(exercises, ids):
    if not ids:
        return exercises
    known = {e.id: e for e in exercises}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise GraderError(
            f"unknown exercise(s): {', '.join(unknown)}; known: {', '.join(known) or 'none'}"
        )
    return [known[i] for i in ids]


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
    args = _parser().parse_args(argv)
    console = _Console(highlight=False)
    err = Console(stderr=True, highlight=False, soft_wrap=not sys.stderr.isatty())
    sandbox = busy = None
    caches = _own_torch_caches()
    try:
        _locate_project(args)
        if args.command == "new":
            return _new(args, console)
        if args.command in (None, "check"):  # a line that says what it does while it grades
            busy = _busy(args, console)
        if args.command in (None, "check", "validate", "watch", "draw"):
            from grader.sandbox.client import Sandbox  # imports no torch: the template does

            # Started before the grader imports torch and loads the specs, so that the
            # template imports torch meanwhile on another core (a first run waited 2 s for it).
            # When every verdict is kept, it is ended unused (grader.grading.verdicts).
            sandbox = Sandbox().start()
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
        return _merge(args, config, console)
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
        return _watch(args, config, lang, exercises, sandbox, console)
    if args.command == "hint":
        from grader.cli.student import show_hint

        show_hint(
            _select(exercises, [args.id])[0],
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
        grading = _grading_config(config, None, console)
        chosen = _select(exercises, args.ids)
        return validate(args, config, grading, chosen, sandbox, console, lang)
    if args.command == "draw":
        return _draw(args, config, exercises, sandbox, console)
    if args.command == "batch":
        return _batch(args, config, lang, exercises, console)
    if args.command == "release":
        return _release(args, exercises, console)
    if args.command == "gradescope":
        return _gradescope(args, exercises, console)
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
    """`python -m grader` and the `grader` script: main(), then leave()."""
    leave(main())


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

    chosen = _select(exercises, getattr(args, "ids", None))
    if args.only:
        from grader.cli.student import only_checks

        chosen = only_checks(chosen, args.only)
    submission = _directory(
        getattr(args, "submission", None) or _own_copy(args), "submission directory"
    )
    json_path = _json_target(getattr(args, "json", None))
    result = grade(
        submission_dir=submission,
        exercises=chosen,
        config=config,
        sandbox=sandbox,
        remember=not getattr(args, "fresh", False),
        on_exercise=lambda e: console.print(terminal.exercise_panel(e, lang)),
        at_once=at_once(),
        busy=busy,
    )
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


def _watch(args, config, lang, exercises, sandbox, console) -> int:
    from grader.cli.student import watch_course

    chosen = _select(exercises, args.ids)
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
        )
    except KeyboardInterrupt:
        pass
    return 0


def _list(exercises, lang, console) -> int:
    table = Table(title="Latihan" if lang == "id" else "Exercises")
    for col in ("id", "title", "points", "topics"):
        table.add_column(col)
    for e in exercises:
        table.add_row(
            e.id, escape(e.title.get(lang)), f"{e.max_points:g}", escape(", ".join(e.topics))
        )
    console.print(table)
    return 0


def _grading_config(config, seed, console):
    """The config with the seed a class is graded with: --seed, else the teacher's grading
    seed (config_mod.grading_seed); a warning where only the public seed is there."""
    if seed is not None:
        return config.with_overrides(seed=seed, seed_source="--seed")
    seed, source = config_mod.grading_seed(config)
    config = config.with_overrides(seed=seed, seed_source=source)
    if config.seed_source == "seed (public)":
        console.print(
            "[yellow]warning: no grading seed (config.yaml `grading_seed:` or "
            f"${config_mod.GRADING_SEED_ENV}): the class is graded on the examples "
            "students see in their release[/]",
            soft_wrap=True,
        )
    return config


def _draw(args, config, exercises, sandbox, console) -> int:
    from grader.authoring.draw import draw

    chosen = _select(exercises, args.ids)
    console.print(
        f"[dim]drawing with the public seed ({config.seed}) and {config.examples} examples a "
        "check, hidden checks included, as `check` and `validate` read them[/]",
        soft_wrap=True,
    )
    for exercise in chosen:
        if exercise.recorded is not None:
            continue
        done = draw(exercise=exercise, solutions=args.solutions, config=config, sandbox=sandbox)
        root = Path(args.exercises_dir).resolve().parent
        shown = done.path.resolve()
        where = escape(str(shown.relative_to(root) if shown.is_relative_to(root) else shown))
        what = "written" if done.changed else "unchanged"
        console.print(
            f"{escape(done.exercise)}: {done.checks} checks, {done.examples} examples: "
            f"{where} {what}",
            soft_wrap=True,
        )
    console.print("commit the files written: a fresh clone's first check reads them")
    return 0


def _batch(args, config, lang, exercises, console) -> int:
    """Exit 0 when every submission was graded, 1 when the grader failed on some or the
    machine was too busy to grade some check of theirs (graded again at the end, in vain)."""
    from grader.batch import deadline
    from grader.batch import run as batch
    from grader.report.progress import BatchProgress
    from grader.sandbox import isolation

    if args.jobs is not None and args.jobs < 1:
        raise GraderError(f"--jobs {args.jobs}: expected at least 1")
    shard = batch.parse_shard(args.shard) if args.shard else None
    config = _grading_config(config, args.seed, console)
    chosen = _select(exercises, args.exercises)
    total = len(batch.take_shard(batch.discover(args.dir), shard))
    refused = isolation.preflight()  # a root grader whose workers could not drop privileges
    if refused:
        raise GraderError(refused)
    due = deadline.Deadlines.read(args.deadline or config.deadline)
    policy = deadline.Policy(config.late_policy, config.late_penalty_per_day)
    roster = _roster(args.roster)
    book = _Gradebook(args.gradebook or config.gradebook, "batch")
    with BatchProgress(total, console) as progress:
        done = batch.run(
            submissions_dir=args.dir,
            exercises=chosen,
            config=config,
            lang=lang,
            root=ROOT,
            jobs=args.jobs,
            shard=shard,
            out=args.out,
            on_result=progress.update,
            due=due,
            policy=policy,
            record=book,
            roster=roster,
        )
    _tell_roster(done.roster)
    console.print(
        f"graded {len(done.results)} submission(s) in {done.seconds:.1f} s "
        f"({len(chosen)} exercise(s), seed from {config.seed_source}); outputs in "
        f"{escape(str(args.out))}",
        soft_wrap=True,
    )
    book.tell(console)
    if done.regraded:
        console.print(
            f"graded again (the machine was overloaded the first time): "
            f"{escape(', '.join(done.regraded))}",
            soft_wrap=True,
        )
    failed = False
    if done.lost:
        console.print(
            f"[red]not graded (the grader failed, see results): "
            f"{escape(', '.join(sorted(done.lost)))}[/]",
            soft_wrap=True,
        )
        failed = True
    if done.overloaded:
        console.print(
            f"[red]not fully graded (the machine was overloaded, twice; run batch again for "
            f"these): {escape(', '.join(done.overloaded))}[/]",
            soft_wrap=True,
        )
        failed = True
    return 1 if failed else 0


def _roster(path: Path | None):
    from grader.outcomes import roster

    return roster.read(path) if path is not None else None


def _tell_roster(match) -> None:
    """The students missing from either side, on stderr (summary.md names them too)."""
    if match is None:
        return
    if match.absent:
        names = ", ".join(p.login + (f" ({p.name})" if p.name else "") for p in match.absent)
        print(f"in the roster, no submission: {names}", file=sys.stderr)
    if match.unlisted:
        print(f"submissions not in the roster: {', '.join(match.unlisted)}", file=sys.stderr)


def _merge(args, config, console) -> int:
    from grader.batch.merge import merge

    book = _Gradebook(args.gradebook or config.gradebook, "merge")
    roster = _roster(args.roster)
    results, manifest = merge(folders=args.folders, out=args.out, record=book, roster=roster)
    if roster is not None:
        from grader.report.classview import lms

        _tell_roster(lms.people(results, roster))
    console.print(
        f"merged {len(args.folders)} folder(s), {len(results)} submission(s), "
        f"into {escape(str(args.out))}",
        soft_wrap=True,
    )
    book.tell(console)
    return 0


def _release(args, exercises, console) -> int:
    from grader.release.build import release

    chosen = _select(exercises, args.exercises)
    done = release(
        root=ROOT,
        out=args.out,
        exercises=chosen,
        force=args.force,
        on_step=lambda text: console.print(f"[dim]checking: {escape(text)}[/]"),
    )
    hidden = sum(done.hidden.values())
    console.print(
        f"[green]released[/] {len(done.exercises)} exercise(s) to "
        f"{escape(str(done.out))}: {done.files} files, {hidden} hidden check(s) kept "
        f"back, {sum(done.recorded.values())} recorded examples in place of reference "
        "code; no solutions/, tests/, benchmarks/ or plugin teacher.py, checked: no line "
        "of an answer or of reference code in it, its starters score 0 and the keys "
        "every visible point. Next: push it as the students' template repository "
        '(docs/teachers.md, "Teaching a class").',
        soft_wrap=True,
    )
    if done.left_out:
        console.print(
            f"[yellow]left out[/] {len(done.left_out)} file(s) the course does not declare "
            "(an exercise's folder releases its starter, its plugin and the files its spec "
            "names in `handout:`; docs/authoring.md):",
            soft_wrap=True,
        )
        for name in done.left_out:
            console.print(f"  {escape(name)}", soft_wrap=True)
    if not done.grading_seed:
        console.print(
            "[yellow]warning: config.yaml has no `grading_seed:`; set one (or "
            f"${config_mod.GRADING_SEED_ENV} in your CI) so that `batch` grades on "
            "examples the students' copy never showed[/]",
            soft_wrap=True,
        )
    return 0


def _gradescope(args, exercises, console) -> int:
    from grader.release.autograder import build

    chosen = _select(exercises, args.exercises)
    names = build(root=ROOT, exercises=chosen, path=args.zip)
    console.print(
        f"wrote {escape(str(args.zip))}: {len(names)} files, {len(chosen)} "
        "exercise(s) with their hidden checks; upload it as the assignment's "
        "autograder on Gradescope",
        soft_wrap=True,
    )
    return 0


class _Gradebook:
    """Records a run in the gradebook (when there is one) before its outputs are written, so
    that report.html can show what changed since each submission's previous run."""

    def __init__(self, path, command: str):
        self.path, self.command = path, command
        self.run: int | None = None
        self.changed: list = []

    def __call__(self, results, manifest):
        """Record; the changes since the previous runs (None without a gradebook)."""
        if self.path is None:
            return None
        from grader.outcomes import gradebook

        self.run = gradebook.record(
            self.path, results, files=manifest.files, command=self.command, shard=manifest.shard
        )
        self.changed = gradebook.changes(self.path, self.run)
        return self.changed

    def tell(self, console) -> None:
        """Print the run recorded and whose scores changed since their last run."""
        if self.path is None or self.run is None:
            return
        from grader.outcomes import gradebook
        from grader.report import regrade

        console.print(
            f"gradebook {escape(str(self.path))}: run {self.run} recorded", soft_wrap=True
        )
        if self.changed:
            console.print(
                f"[yellow]{len(self.changed)} submission(s) changed since their previous run:[/]"
            )
            for change in self.changed:
                console.print(escape(regrade.line(change)), soft_wrap=True)
        elif gradebook.previous_runs(self.path, self.run):
            console.print("no submission changed since its previous run")


if __name__ == "__main__":
    run()

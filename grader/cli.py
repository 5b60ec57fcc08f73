"""The command line: parsing, exit codes and printing; the work is in grading and validate.

Exit codes: 0 everything has full marks (or the command succeeded), 1 some exercise lost points
(or validate found a miss), 2 a usage, config or spec error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import __version__, config as config_mod, spec as spec_mod
from .errors import GraderError
from .grading import grade
from .report import jsonout, terminal
from .sandbox.client import Sandbox

ROOT = Path(__file__).resolve().parents[1]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m grader",
                                description="Grade PyTorch autograd exercises.")
    p.add_argument("--version", action="version", version=f"grader {__version__}")
    p.add_argument("--config", type=Path, help="config file (default: config.yaml)")
    p.add_argument("--exercises-dir", type=Path,
                   help="where the exercise specs are (default: exercises/ of the working copy "
                        "you are in)")
    sub = p.add_subparsers(dest="command")
    check = sub.add_parser("check", help="grade exercises of one submission")
    check.add_argument("ids", nargs="*", metavar="ID", help="exercise ids (default: all)")
    check.add_argument("--submission", type=Path, help="submission directory "
                                                       "(default: exercises/, your working copy)")
    check.add_argument("--json", type=Path, metavar="FILE", help="also write grader-result/1 JSON")
    check.add_argument("--only", nargs="+", metavar="CHECK_ID",
                       help="run only these checks (ids as in the report)")
    check.add_argument("--plot", nargs="?", type=Path, const=Path("grader-plots"), metavar="DIR",
                       help="draw failed elementwise functions as PNGs in DIR "
                            "(default: grader-plots/; needs matplotlib)")
    for q in (check, p):
        q.add_argument("--lang", choices=config_mod.LANGUAGES, help="language of the report")
    lst = sub.add_parser("list", help="list the exercises")
    lst.add_argument("--lang", choices=config_mod.LANGUAGES)
    hint = sub.add_parser("hint", help="show the next hint of an exercise (one at a time)")
    hint.add_argument("id")
    hint.add_argument("--all", action="store_true", help="the instructions and every hint "
                                                         "shown so far")
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
    bat = sub.add_parser("batch", help="grade every submission of a class (teachers)")
    bat.add_argument("dir", type=Path, metavar="DIR", help="one subdirectory per submission")
    bat.add_argument("--out", type=Path, required=True, help="folder for the outputs")
    bat.add_argument("--jobs", type=int, metavar="N",
                     help="submissions graded at once (default: the CPU cores)")
    bat.add_argument("--shard", metavar="K/N", help="grade only shard K of N (a CI matrix job)")
    bat.add_argument("--exercises", nargs="+", metavar="ID", help="exercise ids (default: all)")
    bat.add_argument("--gradebook", type=Path, metavar="FILE",
                     help="SQLite gradebook to record the run in (default: config gradebook)")
    bat.add_argument("--seed", type=int, help="hypothesis seed (default: config seed)")
    bat.add_argument("--lang", choices=config_mod.LANGUAGES)
    mer = sub.add_parser("merge", help="combine the output folders of batch shards")
    mer.add_argument("folders", nargs="+", type=Path, metavar="OUT_K")
    mer.add_argument("--out", type=Path, required=True, help="folder for the merged outputs")
    mer.add_argument("--gradebook", type=Path, metavar="FILE",
                     help="SQLite gradebook to record the run in (default: config gradebook)")
    return p


def _select(exercises, ids):
    if not ids:
        return exercises
    known = {e.id: e for e in exercises}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise GraderError(f"unknown exercise(s): {', '.join(unknown)}; "
                          f"known: {', '.join(known) or 'none'}")
    return [known[i] for i in ids]


def _locate_project(args) -> None:
    """Default --exercises-dir and --config from the working copy the command runs in."""
    from .student import find_root

    if args.exercises_dir is not None:
        return
    root = find_root(Path.cwd()) or ROOT
    args.exercises_dir = root / "exercises"
    if args.config is None and (root / "config.yaml").is_file():
        args.config = root / "config.yaml"


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False, soft_wrap=not sys.stderr.isatty())
    sandbox = None
    try:
        _locate_project(args)
        if args.command in (None, "check", "validate", "watch"):
            sandbox = Sandbox().start()  # imports torch while the specs load
        config = config_mod.load_or_default(args.config)
        lang = getattr(args, "lang", None) or config.language
        exercises = spec_mod.discover(args.exercises_dir, root=ROOT)
        if args.command is None:
            return _course(args, config, lang, exercises, sandbox, console)
        if args.command == "check":
            return _check(args, config, lang, exercises, sandbox, console)
        if args.command == "list":
            return _list(exercises, lang, console)
        if args.command == "watch":
            return _watch(args, config, lang, exercises, sandbox, console)
        if args.command == "hint":
            from .student import show_hint

            show_hint(_select(exercises, [args.id])[0], lang, console,
                      args.exercises_dir.parent, all_seen=args.all, reset=args.reset)
            return 0
        if args.command == "validate":
            return _validate(args, config, lang, exercises, sandbox, console)
        if args.command == "batch":
            return _batch(args, config, lang, exercises, console)
        if args.command == "merge":
            return _merge(args, config, console)
    except GraderError as exc:
        err.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        return 130
    finally:
        if sandbox is not None:
            sandbox.close()
    return 2


def _course(args, config, lang, exercises, sandbox, console) -> int:
    """No command: grade the working copy and show the course view."""
    from .student import show_course

    if not args.exercises_dir.is_dir():
        raise GraderError(f"exercises directory not found: {args.exercises_dir}")
    result = show_course(directory=args.exercises_dir, exercises=exercises, config=config,
                         sandbox=sandbox, lang=lang, console=console,
                         state_root=args.exercises_dir.parent)
    return 0 if result.full_marks else 1


def _check(args, config, lang, exercises, sandbox, console) -> int:
    chosen = _select(exercises, getattr(args, "ids", None))
    if args.only:
        from .student import only_checks

        chosen = only_checks(chosen, args.only)
    submission = getattr(args, "submission", None) or args.exercises_dir
    if not submission.is_dir():
        raise GraderError(f"submission directory not found: {submission}")
    result = grade(submission_dir=submission, exercises=chosen, config=config, sandbox=sandbox,
                   on_exercise=lambda e: console.print(terminal.exercise_panel(e, lang)))
    if args.plot is not None:
        _plot(args, result, chosen, submission, config, sandbox, lang, console)
    terminal.render_total(result, lang, console)
    if getattr(args, "json", None):
        jsonout.write(args.json, result, lang)
    return 0 if result.full_marks else 1


def _plot(args, result, chosen, submission, config, sandbox, lang, console) -> None:
    from . import plot

    pictures = plot.draw_failed(result=result, exercises=chosen, submission_dir=submission,
                                config=config, sandbox=sandbox, out=args.plot, lang=lang)
    label = "Gambar" if lang == "id" else "Plot"
    for pic in pictures:
        console.print(f"{label} {pic.exercise}.{pic.check}: {escape(str(pic.path))}",
                      soft_wrap=True)


def _watch(args, config, lang, exercises, sandbox, console) -> int:
    from .student import watch_course

    chosen = _select(exercises, args.ids)
    directory = args.submission or args.exercises_dir
    if not directory.is_dir():
        raise GraderError(f"submission directory not found: {directory}")
    try:
        watch_course(directory=directory, exercises=chosen, config=config, sandbox=sandbox,
                     lang=lang, console=console,
                     state_root=None if args.submission else directory.parent)
    except KeyboardInterrupt:
        pass
    return 0


def _list(exercises, lang, console) -> int:
    table = Table(title="Latihan" if lang == "id" else "Exercises")
    for col in ("id", "title", "points", "topics"):
        table.add_column(col)
    for e in exercises:
        table.add_row(e.id, escape(e.title.get(lang)), f"{e.max_points:g}",
                      escape(", ".join(e.topics)))
    console.print(table)
    return 0


def _validate(args, config, lang, exercises, sandbox, console) -> int:
    from .validate import audit

    all_ok = True
    for exercise in _select(exercises, args.ids):
        result = audit(exercise=exercise, solutions=args.solutions, config=config,
                       sandbox=sandbox)
        table = Table(title=f"{exercise.id}", title_justify="left")
        for col in ("role", "file", "score", "verdict", "caught by / status"):
            table.add_column(col)
        for t in result.trials:
            verdict = "[green]ok[/]" if t.ok else "[red]MISS[/]"
            score = f"{t.result.score:g}/{t.result.max_score:g}"
            info = ", ".join(t.caught_by) if t.role == "mutant" else t.result.status
            table.add_row(t.role, escape(Path(t.file).name), score, verdict, escape(info))
        console.print(table)
        v_ok, v_all = result.count("variant")
        m_ok, m_all = result.count("mutant")
        console.print(f"{exercise.id}: variants accepted {v_ok}/{v_all}, "
                      f"mutants rejected {m_ok}/{m_all} "
                      f"(mutation score {100 * m_ok / max(m_all, 1):.0f}%)", soft_wrap=True)
        if not (v_all and m_all):
            console.print(f"[red]{exercise.id}: needs at least one variant and one mutant[/]")
        all_ok &= result.ok
    return 0 if all_ok else 1


def _batch(args, config, lang, exercises, console) -> int:
    """Exit 0 when every submission was graded, 1 when the grader failed on some."""
    from . import batch
    from .report.progress import BatchProgress

    if args.jobs is not None and args.jobs < 1:
        raise GraderError(f"--jobs {args.jobs}: expected at least 1")
    shard = batch.parse_shard(args.shard) if args.shard else None
    config = config.with_overrides(seed=args.seed)
    chosen = _select(exercises, args.exercises)
    total = len(batch.take_shard(batch.discover(args.dir), shard))
    with BatchProgress(total, console) as progress:
        done = batch.run(submissions_dir=args.dir, exercises=chosen, config=config, lang=lang,
                         root=ROOT, jobs=args.jobs, shard=shard, out=args.out,
                         on_result=progress.update)
    console.print(f"graded {len(done.results)} submission(s) in {done.seconds:.1f} s "
                  f"({len(chosen)} exercise(s), seed {config.seed}); outputs in "
                  f"{escape(str(args.out))}", soft_wrap=True)
    _record(args.gradebook or config.gradebook, done.results, done.manifest, "batch", console)
    if done.lost:
        console.print(f"[red]not graded (the grader failed, see results): "
                      f"{escape(', '.join(sorted(done.lost)))}[/]", soft_wrap=True)
        return 1
    return 0


def _merge(args, config, console) -> int:
    from .merge import merge

    results, manifest = merge(folders=args.folders, out=args.out)
    console.print(f"merged {len(args.folders)} folder(s), {len(results)} submission(s), "
                  f"into {escape(str(args.out))}", soft_wrap=True)
    _record(args.gradebook or config.gradebook, results, manifest, "merge", console)
    return 0


def _record(path, results, manifest, command, console) -> None:
    """Record the run in the gradebook and print whose scores changed since their last run."""
    if path is None:
        return
    from . import gradebook
    from .report import regrade

    run = gradebook.record(path, results, files=manifest.files, command=command,
                           shard=manifest.shard)
    changed = gradebook.changes(path, run)
    console.print(f"gradebook {escape(str(path))}: run {run} recorded", soft_wrap=True)
    if changed:
        console.print(f"[yellow]{len(changed)} submission(s) changed since their previous "
                      f"run:[/]")
        for change in changed:
            console.print(escape(regrade.line(change)), soft_wrap=True)
    elif gradebook.previous_runs(path, run):
        console.print("no submission changed since its previous run")


if __name__ == "__main__":
    sys.exit(main())

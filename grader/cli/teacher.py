"""The teacher's commands: draw, batch, merge, release and gradescope (validate is in
grader.cli.validating)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.markup import escape

from grader.cli.parser import ROOT, select
from grader.common.errors import GraderError
from grader.loader import config as config_mod


def grading_config(config, seed, console):
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


def draw(args, config, exercises, sandbox, console) -> int:
    from grader.authoring.draw import draw

    chosen = select(exercises, args.ids)
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


def batch(args, config, lang, exercises, console) -> int:
    """Exit 0 when every submission was graded, 1 when the grader failed on some or the
    machine was too busy to grade some check of theirs (graded again at the end, in vain)."""
    from grader.batch import deadline
    from grader.batch import run as batch
    from grader.report.progress import BatchProgress
    from grader.sandbox import isolation

    if args.jobs is not None and args.jobs < 1:
        raise GraderError(f"--jobs {args.jobs}: expected at least 1")
    shard = batch.parse_shard(args.shard) if args.shard else None
    config = grading_config(config, args.seed, console)
    chosen = select(exercises, args.exercises)
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


def merge(args, config, console) -> int:
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


def release(args, exercises, console) -> int:
    from grader.release.build import release

    chosen = select(exercises, args.exercises)
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


def gradescope(args, exercises, console) -> int:
    from grader.release.autograder import build

    chosen = select(exercises, args.exercises)
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

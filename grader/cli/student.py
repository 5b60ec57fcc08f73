"""The student's commands behind the CLI: the course view, `check --only`, hints one at a time,
and watch. Argument parsing and exit codes stay in grader.cli.main."""

from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.text import Text as RichText

from grader.cli.hints import Progress
from grader.common.errors import GraderError
from grader.grading.grade import at_once, grade
from grader.outcomes import progress as course_mod
from grader.report import course as course_report
from grader.report import terminal
from grader.specs.model import Exercise


def shown_path(path: Path) -> str:
    """A path as the student would type it: relative to where they are, when it is below."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def _files(exercises: list[Exercise]) -> dict[str, str]:
    return {e.id: e.file for e in exercises}


def show_course(
    *,
    directory: Path,
    exercises: list[Exercise],
    config,
    sandbox,
    lang: str,
    console: Console,
    state_root: Path | None,
    ran_at: datetime | None = None,
    remember: bool = True,
    busy=None,
):
    """Grade the working copy, count failed runs for hints, and print the course view.
    Returns the SubmissionResult. remember: show kept verdicts of unchanged files
    (grader.grading.verdicts); busy: the line shown while it grades (grader.cli.busy)."""
    result = grade(
        submission_dir=directory,
        exercises=exercises,
        config=config,
        sandbox=sandbox,
        remember=remember,
        at_once=at_once(),
        busy=busy,
    )
    if busy is not None:
        busy.stop()
    if state_root is not None:
        progress = Progress.of(state_root)
        progress.record_run(result)
        progress.save()
        result = opened(result, progress, config, exercises)
    view = course_mod.view(result, Path(shown_path(directory)), _files(exercises))
    course_report.render(view, lang, console, ran_at=ran_at)
    return result


def opened(result, progress: Progress, config, exercises: list[Exercise]):
    """The result with the hints the feedback level kept back shown where the student has
    earned them: asked with `grader hint`, or failed the exercise `hints_after` runs."""
    return dataclasses.replace(
        result, exercises=[seen(e, progress, config, exercises) for e in result.exercises]
    )


def seen(e, progress: Progress, config, exercises: list[Exercise]):
    """One exercise's result as `opened` shows it."""
    spec = next((x for x in exercises if x.id == e.id), None)
    after = config.feedback_for(spec).hints_after if spec is not None else None
    return progress.opened(e, after)


def only_checks(exercises: list[Exercise], only: list[str]) -> list[Exercise]:
    """The exercises with just the named checks (`check ID --only CHECK`): a check's id, or
    its title as the report shows it (either language, any case), or a part of one title."""
    checks = [c for e in exercises for c in e.checks]
    wanted: set[str] = set()
    unknown = []
    for name in only:
        found = _named(checks, name)
        if found is None:
            unknown.append(name)
        else:
            wanted.add(found)
    if unknown:
        raise GraderError(unknown_checks(exercises, unknown))
    out = []
    for e in exercises:
        chosen = tuple(c for c in e.checks if c.id in wanted)
        if chosen:
            out.append(dataclasses.replace(e, checks=chosen))
    return out


def unknown_checks(exercises: list[Exercise], unknown: list[str]) -> str:
    """What `--only` names that picks no check, said name by name: an exercise's id, a part of
    several titles, a near miss; then the checks it may name (titles too where one exercise
    was chosen; ids only for the course, whose every title would fill a screen)."""
    import difflib

    checks = [c for e in exercises for c in e.checks]
    said = []
    for name in unknown:
        several = sorted(_titled(checks, name)[1])
        near = difflib.get_close_matches(name, [c.id for c in checks], n=3, cutoff=0.8)
        if any(e.id == name for e in exercises):
            said.append(
                f"{name} is an exercise, not a check (`python -m grader check {name}` grades "
                "it; --only then picks checks in it)"
            )
        elif len(several) > 1:
            said.append(f"{name} is in several checks' titles: {', '.join(several)}")
        elif near:
            said.append(f"{name} (did you mean {' or '.join(near)}?)")
        else:
            said.append(name)
    if len(exercises) == 1:
        known = ", ".join(f"{c.id} ({c.title.en})" for c in checks)
    else:
        known = "; ".join(f"{e.id}: {', '.join(c.id for c in e.checks)}" for e in exercises)
    return f"unknown check(s): {'; '.join(said)}. Known: {known}"


def _named(checks, name: str) -> str | None:
    """The id of the check `name` names: its id, its whole title, or a part of exactly one
    title (None: none, or several)."""
    if any(c.id == name for c in checks):
        return name
    for found in _titled(checks, name):
        if len(found) == 1:
            return found.pop()
    return None


def _titled(checks, name: str) -> tuple[set[str], set[str]]:
    """The ids of the checks whose title (either language, any case or spacing) is `name`,
    and of those whose title holds it."""
    said = " ".join(name.split()).casefold()
    titles = [
        (c.id, " ".join(t.split()).casefold()) for c in checks for t in (c.title.id, c.title.en)
    ]
    return {i for i, t in titles if t == said}, {i for i, t in titles if said and said in t}


HINT_WORDS = {
    "id": {
        "title": "Petunjuk {n}/{t} untuk {id}",
        "none": "{id} tidak punya petunjuk.",
        "locked": "Petunjuk {n}/{t} terbuka setelah {k} kali gagal menjalankan latihan ini "
        "(sejauh ini: {f}). Coba dulu, lalu jalankan `python -m grader`.",
        "last": "Itu petunjuk terakhir. Semua: `python -m grader hint {id} --all`.",
        "more": "Petunjuk berikutnya: jalankan `python -m grader hint {id}` lagi.",
        "held": "Petunjuk {n}/{t} untuk pemeriksaan yang gagal di {id}",
        "instructions": "Instruksi",
    },
    "en": {
        "title": "Hint {n}/{t} for {id}",
        "none": "{id} has no hints.",
        "locked": "Hint {n}/{t} opens after {k} failed runs of this exercise (so far: {f}). "
        "Try first, then run `python -m grader`.",
        "last": "That was the last hint. All of them: `python -m grader hint {id} --all`.",
        "more": "Next hint: run `python -m grader hint {id}` again.",
        "held": "Hint {n}/{t} for the checks of {id} that failed",
        "instructions": "Instructions",
    },
}


def show_hint(
    exercise: Exercise,
    lang: str,
    console: Console,
    state_root: Path,
    *,
    all_seen: bool = False,
    reset: bool = False,
) -> None:
    words = HINT_WORDS[lang]
    progress = Progress.of(state_root)
    if reset:
        progress.reset(exercise.id)
    console.print(RichText(exercise.title.get(lang), style="bold"))
    if all_seen or progress.shown(exercise.id) == 0:
        console.print(RichText(terminal.unwrap(exercise.instructions.get(lang))))
    if all_seen:
        for n, h in enumerate(progress.seen_hints(exercise), start=1):
            console.print(RichText.assemble((f"{n}. ", "cyan"), terminal.unwrap(h.get(lang))))
        progress.save()
        return
    held, n, total = progress.next_held(exercise.id)
    if held is not None:  # the recipe of a check that failed in the last run comes first
        progress.save()
        console.print(
            RichText(words["held"].format(n=n, t=total, id=exercise.id), style="bold cyan")
        )
        console.print(RichText(terminal.unwrap(held.get(lang))))
        console.print(RichText(words["more"].format(id=exercise.id), style="dim"))
        return
    step = progress.next_hint(exercise)
    progress.save()
    if step.total == 0:
        console.print(words["none"].format(id=exercise.id))
        return
    if step.hint is None:
        console.print(
            RichText(
                words["locked"].format(
                    n=step.number, t=step.total, k=step.locked_until, f=step.failures
                ),
                style="yellow",
            )
        )
        return
    console.print(
        RichText(
            words["title"].format(n=step.number, t=step.total, id=exercise.id), style="bold cyan"
        )
    )
    console.print(RichText(terminal.unwrap(step.hint.get(lang))))
    last = step.repeat or step.number == step.total
    console.print(
        RichText((words["last"] if last else words["more"]).format(id=exercise.id), style="dim")
    )


WATCH_WORDS = {
    "id": "Menunggu perubahan (Ctrl-C untuk berhenti)...",
    "en": "Watching for changes (Ctrl-C to stop)...",
}


def watch_course(
    *,
    directory: Path,
    exercises: list[Exercise],
    config,
    sandbox,
    lang: str,
    console: Console,
    state_root: Path | None,
    interval: float = 0.5,
    stop=None,
    on_result=None,
    busy=None,
) -> None:
    """Grade everything once, then re-grade each saved exercise and redraw the course view
    (cleared, with the time of the run); "next" moves on once an exercise is done. busy: the
    line shown while it grades (grader.cli.busy), started; each regrade shows one again."""
    from grader.cli.watch import watch

    latest: dict = {}
    lines = [busy]

    def regrade(batch):
        line = lines.pop() if lines else (busy.again() if busy is not None else None)
        try:
            result = grade(
                submission_dir=directory,
                exercises=batch,
                config=config,
                sandbox=sandbox,
                remember=True,
                at_once=at_once(),
                busy=line,
            )
        finally:
            if line is not None:
                line.stop()
        if state_root is not None:
            progress = Progress.of(state_root)
            progress.record_run(result)
            progress.save()
            result = opened(result, progress, config, exercises)
        latest.update({e.id: e for e in result.exercises})
        whole = dataclasses.replace(
            result, exercises=[latest[e.id] for e in exercises if e.id in latest]
        )
        if console.is_terminal:
            console.clear()
        view = course_mod.view(whole, Path(shown_path(directory)), _files(exercises))
        course_report.render(view, lang, console, ran_at=datetime.now())
        console.print(RichText(WATCH_WORDS[lang], style="dim"))
        if on_result is not None:
            on_result(view)

    watch(
        directory=directory, exercises=exercises, on_change=regrade, interval=interval, stop=stop
    )

"""Feedback for one student, as Markdown: OUT/feedback/<submission>.md after a batch.

Written wholly in the course's language, to be committed to the student's repository or mailed:
the score per exercise, every visible check that did not earn its points with its message,
failing input, traceback and hint, and every hidden check by title and status only (never its
message, inputs or traceback, whatever the result holds). An exercise the student has not started
(outcomes.progress.not_started) is one line, the file to edit, not a message per check. Paths
are the result's, relative to the submission folder. Reads the result model only.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from grader.common.safetext import REFUSED_NAME, ascii_file_name, atomic_write, file_names
from grader.outcomes.progress import not_started, unwritten
from grader.outcomes.results import (
    CheckResult,
    ExerciseResult,
    SubmissionResult,
    shown_environment,
)
from grader.report.statuswords import ICON, STATUS, graded_note, late_words

FOLDER = "feedback"

LABELS = {
    "id": {
        "title": "Umpan balik",
        "score": "Nilai",
        "exercise": "Latihan",
        "status": "Status",
        "points": "poin",
        "counter": "Contoh gagal",
        "hint": "Petunjuk",
        "held": "Ada petunjuk untuk pemeriksaan ini: `python -m grader hint {id}` di salinanmu.",
        "visible": "{p} dari {n} pemeriksaan terlihat lulus.",
        "hidden": "Pemeriksaan tersembunyi (dijalankan guru; inputnya tidak ditampilkan)",
        "later": "{n} pemeriksaan tersembunyi hanya dijalankan saat penilaian kelas.",
        "bonus": "bonus",
        "full_one": "`{id}` mendapat nilai penuh.",
        "full": "Semua {n} latihan yang dinilai mendapat nilai penuh.",
        "todo": "Belum mulai: tulis {fns} di {file} (docstring-nya menjelaskan apa yang "
        "diminta), lalu jalankan `python -m grader` lagi.",
        "todo_file": "Belum mulai: kerjakan {file} (docstring-nya menjelaskan apa yang "
        "diminta), lalu jalankan `python -m grader` lagi.",
        "seed": "Dinilai dengan grader {g}, seed {s}. Jalankan `python -m grader` di "
        "salinanmu untuk melihat pemeriksaan yang terlihat lagi.",
        "secret": "penilaian milik guru (contohnya bukan yang ada di salinanmu)",
        "total": "Total",
    },
    "en": {
        "title": "Feedback",
        "score": "Score",
        "exercise": "Exercise",
        "status": "Status",
        "points": "points",
        "counter": "Failing input",
        "hint": "Hint",
        "held": "There is a hint for this check: `python -m grader hint {id}` in your copy.",
        "visible": "{p} of {n} visible checks passed.",
        "hidden": "Hidden checks (run by your teacher; their inputs are not shown)",
        "later": "{n} hidden check(s) run only when the class is graded.",
        "bonus": "bonus",
        "full_one": "`{id}` has full marks.",
        "full": "All {n} exercises graded have full marks.",
        "todo": "Not started: write {fns} in {file} (its docstrings say what to do), then run "
        "`python -m grader` again.",
        "todo_file": "Not started: edit {file} (its docstrings say what to do), then run "
        "`python -m grader` again.",
        "seed": "Graded with grader {g}, seed {s}. Run `python -m grader` in your copy to "
        "see the visible checks again.",
        "secret": "the teacher's grading seed (other examples than your copy's)",
        "total": "Total",
    },
}
# Characters Markdown would read as formatting in a message (a student's exception text, say).
_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def _n(x: float) -> str:
    return f"{x:g}"


def _plain(s: str) -> str:
    """Text shown as written: Markdown's formatting characters escaped, on one line each."""
    return _SPECIAL.sub(r"\\\1", s)


def _code(lines: list[str]) -> list[str]:
    """A fenced block that no backtick run inside it can close early."""
    longest = max((len(m) for line in lines for m in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *lines, fence]


def _check(e: ExerciseResult, c: CheckResult, lang: str) -> list[str]:
    words, status = LABELS[lang], STATUS[lang][c.status]
    said = words["bonus"].lower() in c.title.get(lang).lower()  # a title may say it already
    tag = f" ({words['bonus']})" if c.bonus and not said else ""
    out = [
        f"### {ICON[c.status]} {_plain(c.title.get(lang))}{tag}: "
        f"{_n(c.points)}/{_n(c.max_points)} {words['points']} ({status})",
        "",
    ]
    if e.message is not None:  # the exercise's reason, given once above, covers its checks
        return out
    if c.message is not None:
        out += [_plain(line) for line in c.message.get(lang).splitlines()] + [""]
    if c.counterexample:
        out += [f"{words['counter']}:", "", *_code(c.counterexample.splitlines()), ""]
    if c.traceback:
        out += [*_code(list(c.traceback)), ""]
    if c.hint is not None:
        out += [f"**{words['hint']}:** {_plain(c.hint.get(lang))}", ""]
    elif c.held_hint is not None:  # kept back by the feedback level (grader.outcomes.levels)
        out += [words["held"].format(id=e.id), ""]
    return out


Attempt = Callable[[str, str], str]
"""attempt(submission id, exercise id): attempted, missing or untouched, as a class's manifest
knows it from the files' hashes (batch.files.Manifest.attempt)."""


def unstarted(r: SubmissionResult, attempt: Attempt | None = None) -> set[str]:
    """The ids of the exercises of r the student has not started (outcomes.progress)."""
    return {
        e.id
        for e in r.exercises
        if not_started(e, attempt(r.submission, e.id) if attempt else None)
    }


def _heading(e: ExerciseResult, icon: str, lang: str) -> str:
    return (
        f"## {icon} {_plain(e.title.get(lang))} (`{e.id}`): "
        f"{_n(e.score)}/{_n(e.max_score)} {LABELS[lang]['points']}"
    )


def _not_started(e: ExerciseResult, lang: str) -> list[str]:
    """An exercise not started: what to write and where, instead of the same NotImplementedError
    once per check (and, in the student's own run, how many hidden checks wait for the class's
    grading; a class's hidden checks of an exercise not started are not listed)."""
    words = LABELS[lang]
    file = _plain(e.file or f"{e.id}.py")  # relative to the submission folder
    functions = unwritten(e) if not_started(e) else []  # the checks say so: they name them
    todo = (
        words["todo"].format(fns=_plain(", ".join(functions)), file=file)
        if functions
        else words["todo_file"].format(file=file)
    )
    out = [_heading(e, ICON["not_started"], lang), "", todo, ""]
    if e.hidden_checks and not any(c.hidden for c in e.checks):  # the student's own run
        out += [words["later"].format(n=e.hidden_checks), ""]
    return out


def _exercise(e: ExerciseResult, lang: str) -> list[str]:
    words = LABELS[lang]
    out = [_heading(e, ICON[e.status], lang), ""]
    note = graded_note(e.file, e.ignored, lang)
    if note:
        out += [_plain(note), ""]
    if e.message is not None:
        out += [_plain(line) for line in e.message.get(lang).splitlines()] + [""]
        if e.traceback:
            out += [*_code(list(e.traceback)), ""]
    visible = [c for c in e.checks if not c.hidden]
    passed = sum(c.status == "passed" for c in visible)
    out += [words["visible"].format(p=passed, n=len(visible)), ""]
    for c in visible:
        if c.status != "passed":
            out += _check(e, c, lang)
    hidden = [c for c in e.checks if c.hidden]
    if e.hidden_checks and not hidden:  # graded by the student: the teacher runs them later
        out += [words["later"].format(n=e.hidden_checks), ""]
    if hidden:
        out += [f"### {words['hidden']}", ""]
        out += [
            f"- {ICON[c.status]} {_plain(c.title.get(lang))}: {STATUS[lang][c.status]}"
            for c in hidden
        ]
        out.append("")
    return out


def _full_marks(r: SubmissionResult, lang: str) -> str:
    """Said of the exercises graded only (`check ID` grades one), never of the whole course."""
    words = LABELS[lang]
    if len(r.exercises) == 1:
        return words["full_one"].format(id=r.exercises[0].id)
    return words["full"].format(n=len(r.exercises))


def text(r: SubmissionResult, lang: str, attempt: Attempt | None = None) -> str:
    """attempt: what a class's manifest knows of each file (see Attempt), so that an untouched
    starter is said to be not started even where its checks cannot tell."""
    words, status = LABELS[lang], STATUS[lang]
    idle = unstarted(r, attempt)
    lines = [
        f"# {words['title']}: {_plain(r.submission)}",
        "",
        f"**{words['score']}: {_n(r.score)}/{_n(r.max_score)}**",
        "",
        *([f"_{_plain(late_words(r.late, lang))}_", ""] if r.late else []),
        f"| {words['exercise']} | {words['score']} | {words['status']} |",
        "|---|--:|---|",
    ]
    for e in r.exercises:
        shown = "not_started" if e.id in idle else e.status
        lines.append(
            f"| {_plain(e.title.get(lang))} (`{e.id}`) | "
            f"{_n(e.score)}/{_n(e.max_score)} | {ICON[shown]} {status[shown]} |"
        )
    lines.append(f"| **{words['total']}** | **{_n(r.score)}/{_n(r.max_score)}** | |")
    lines.append("")
    if r.exercises and all(e.status == "passed" for e in r.exercises):
        lines += [_full_marks(r, lang), ""]
    for e in r.exercises:
        lines += _not_started(e, lang) if e.id in idle else _exercise(e, lang)
    env = shown_environment(r.environment)
    seed = env.get("seed", words["secret"])  # the teacher's grading seed is never shown
    lines.append(f"_{words['seed'].format(g=env.get('grader', '?'), s=seed)}_")
    return "\n".join(lines) + "\n"


def write(
    out: Path, results: list[SubmissionResult], lang: str, attempt: Attempt | None = None
) -> None:
    """OUT/feedback/<submission>.md for every submission (a name that is no plain file name gets
    a safe one, safetext.file_names; the file's title says whose it is); rewrites the folder, so
    that no file of an earlier run stays behind. attempt: see text()."""
    folder = Path(out) / FOLDER
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    names = file_names(r.submission for r in results)
    for r in results:
        content = text(r, lang, attempt)
        try:
            atomic_write(folder / f"{names[r.submission]}.md", content)
        except OSError as exc:  # a file system that refuses the name: an ASCII one
            if exc.errno not in REFUSED_NAME:
                raise
            atomic_write(folder / f"{ascii_file_name(r.submission)}.md", content)


def write_one(path: Path, r: SubmissionResult, lang: str) -> None:
    """One submission's feedback to a file of its own (a CI job summary, say)."""
    atomic_write(Path(path), text(r, lang))

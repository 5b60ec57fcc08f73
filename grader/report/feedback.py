"""Feedback for one student, as Markdown: OUT/feedback/<submission>.md after a batch.

Written wholly in the course's language, to be committed to the student's repository or mailed:
the score per exercise, every visible check that did not earn its points with its message,
failing input, traceback and hint, and every hidden check by title and status only (never its
message, inputs or traceback, whatever the result holds). Reads the result model only.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from grader.common.safetext import REFUSED_NAME, ascii_file_name, atomic_write, file_names
from grader.outcomes.results import (
    CheckResult,
    ExerciseResult,
    SubmissionResult,
    shown_environment,
)
from grader.report.statuswords import ICON, STATUS

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
        "visible": "{p} dari {n} pemeriksaan terlihat lulus.",
        "hidden": "Pemeriksaan tersembunyi (dijalankan guru; inputnya tidak ditampilkan)",
        "later": "{n} pemeriksaan tersembunyi hanya dijalankan saat penilaian kelas.",
        "bonus": "bonus",
        "full": "Semua latihan mendapat nilai penuh.",
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
        "visible": "{p} of {n} visible checks passed.",
        "hidden": "Hidden checks (run by your teacher; their inputs are not shown)",
        "later": "{n} hidden check(s) run only when the class is graded.",
        "bonus": "bonus",
        "full": "Every exercise has full marks.",
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
    tag = f" ({words['bonus']})" if c.bonus else ""
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
    return out


def _exercise(e: ExerciseResult, lang: str) -> list[str]:
    words = LABELS[lang]
    out = [
        f"## {ICON[e.status]} {_plain(e.title.get(lang))} (`{e.id}`): "
        f"{_n(e.score)}/{_n(e.max_score)} {words['points']}",
        "",
    ]
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


def text(r: SubmissionResult, lang: str) -> str:
    words, status = LABELS[lang], STATUS[lang]
    lines = [
        f"# {words['title']}: {_plain(r.submission)}",
        "",
        f"**{words['score']}: {_n(r.score)}/{_n(r.max_score)}**",
        "",
        f"| {words['exercise']} | {words['score']} | {words['status']} |",
        "|---|--:|---|",
    ]
    for e in r.exercises:
        lines.append(
            f"| {_plain(e.title.get(lang))} (`{e.id}`) | "
            f"{_n(e.score)}/{_n(e.max_score)} | {ICON[e.status]} {status[e.status]} |"
        )
    lines.append(f"| **{words['total']}** | **{_n(r.score)}/{_n(r.max_score)}** | |")
    lines.append("")
    if r.exercises and all(e.status == "passed" for e in r.exercises):
        lines += [words["full"], ""]
    for e in r.exercises:
        lines += _exercise(e, lang)
    env = shown_environment(r.environment)
    seed = env.get("seed", words["secret"])  # the teacher's grading seed is never shown
    lines.append(f"_{words['seed'].format(g=env.get('grader', '?'), s=seed)}_")
    return "\n".join(lines) + "\n"


def write(out: Path, results: list[SubmissionResult], lang: str) -> None:
    """OUT/feedback/<submission>.md for every submission (a name that is no plain file name gets
    a safe one, safetext.file_names; the file's title says whose it is); rewrites the folder, so
    that no file of an earlier run stays behind."""
    folder = Path(out) / FOLDER
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    names = file_names(r.submission for r in results)
    for r in results:
        content = text(r, lang)
        try:
            atomic_write(folder / f"{names[r.submission]}.md", content)
        except OSError as exc:  # a file system that refuses the name: an ASCII one
            if exc.errno not in REFUSED_NAME:
                raise
            atomic_write(folder / f"{ascii_file_name(r.submission)}.md", content)


def write_one(path: Path, r: SubmissionResult, lang: str) -> None:
    """One submission's feedback to a file of its own (a CI job summary, say)."""
    atomic_write(Path(path), text(r, lang))

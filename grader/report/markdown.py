"""A class summary in Markdown, fit for a CI job summary ($GITHUB_STEP_SUMMARY).

Formats grader.classstats: the score distribution, each exercise, and the pass rate of every
check across the class, lowest first.
"""

from __future__ import annotations

from pathlib import Path

from ..classstats import ClassStats
from ..safetext import atomic_write

LABELS = {
    "id": {"title": "Penilaian kelas", "subs": "kiriman", "mean": "rata-rata",
           "median": "median", "range": "rentang", "full": "nilai penuh",
           "dist": "Sebaran nilai", "score": "Nilai (%)", "count": "Kiriman",
           "exercises": "Latihan", "exercise": "Latihan", "checks": "Pemeriksaan, tingkat lulus "
           "terendah dulu", "check": "Pemeriksaan", "kind": "Jenis", "passed": "Lulus",
           "rate": "Tingkat", "hidden": "tersembunyi", "bonus": "bonus",
           "statuses": "Status", "none": "Tidak ada kiriman."},
    "en": {"title": "Class grading", "subs": "submissions", "mean": "mean",
           "median": "median", "range": "range", "full": "full marks",
           "dist": "Score distribution", "score": "Score (%)", "count": "Submissions",
           "exercises": "Exercises", "exercise": "Exercise", "checks": "Checks, lowest pass rate "
           "first", "check": "Check", "kind": "Kind", "passed": "Passed", "rate": "Rate",
           "hidden": "hidden", "bonus": "bonus", "statuses": "Statuses",
           "none": "No submissions."},
}
BAR = 20


def _cell(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _bar(part: float, whole: float) -> str:
    return "█" * round(BAR * part / whole) if whole else ""


def text(stats: ClassStats, lang: str) -> str:
    w = LABELS[lang]
    lines = [f"## {w['title']}", ""]
    if not stats.submissions:
        return "\n".join(lines + [w["none"], ""])
    lines += [f"{stats.submissions} {w['subs']}; {w['mean']} {stats.mean:.4g}/{stats.max_score:g}, "
              f"{w['median']} {stats.median:g}, {w['range']} {min(stats.scores):g}–"
              f"{max(stats.scores):g}; {w['full']}: {stats.full_marks}", "",
              f"### {w['dist']}", "", f"| {w['score']} | {w['count']} | |", "|---|--:|---|"]
    most = max(n for _, _, n in stats.distribution)
    for low, high, n in stats.distribution:
        label = "100" if low == high else f"{low:g}–{high:g}"
        lines.append(f"| {label} | {n} | {_bar(n, most)} |")
    lines += ["", f"### {w['exercises']}", "",
              f"| {w['exercise']} | {w['mean'].capitalize()} | {w['statuses']} |",
              "|---|--:|---|"]
    for e in stats.exercises:
        counts = ", ".join(f"{k} {n}" for k, n in sorted(e.statuses.items()))
        lines.append(f"| {_cell(e.title.get(lang))} (`{e.id}`) | {e.mean:.3g}/{e.max_score:g} "
                     f"| {counts} |")
    lines += ["", f"### {w['checks']}", "",
              f"| {w['check']} | {w['kind']} | {w['passed']} | {w['rate']} | |",
              "|---|---|--:|--:|---|"]
    for c in stats.checks:
        tags = "".join(f" _({w[t]})_" for t in ("hidden", "bonus") if getattr(c, t))
        lines.append(f"| `{c.exercise}.{c.check}` {_cell(c.title.get(lang))}{tags} | {c.kind} "
                     f"| {c.passed}/{c.total} | {100 * c.rate:.0f}% | {_bar(c.passed, c.total)} |")
    return "\n".join(lines) + "\n"


def write(path: Path, stats: ClassStats, lang: str) -> None:
    atomic_write(Path(path), text(stats, lang))

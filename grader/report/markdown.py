"""A class summary in Markdown, fit for a CI job summary ($GITHUB_STEP_SUMMARY).

Formats grader.outcomes.classstats: the score distribution, each exercise, and the pass rate of every
check among the submissions that attempted its exercise, lowest first; wholly in the course's
language.
"""

from __future__ import annotations

from pathlib import Path

from grader.common.safetext import atomic_write
from grader.outcomes.classstats import ClassStats
from grader.report.statuswords import STATUS, late_words

LABELS = {
    "id": {
        "title": "Penilaian kelas",
        "roster": "Daftar mahasiswa",
        "roster_ok": "Setiap kiriman cocok dengan satu mahasiswa di daftar, dan setiap mahasiswa "
        "punya kiriman ({n}).",
        "absent": "Di daftar, tanpa kiriman",
        "unlisted": "Kiriman yang tidak ada di daftar (tidak masuk ekspor LMS dengan "
        "identitasnya)",
        "late": "Kiriman terlambat",
        "subs": "kiriman",
        "mean": "rata-rata",
        "median": "median",
        "range": "rentang",
        "full": "nilai penuh",
        "dist": "Sebaran nilai",
        "score": "Nilai (%)",
        "count": "Kiriman",
        "exercises": "Latihan",
        "exercise": "Latihan",
        "checks": "Pemeriksaan, tingkat lulus terendah dulu",
        "check": "Pemeriksaan",
        "kind": "Jenis",
        "passed": "Lulus",
        "rate": "Tingkat",
        "hidden": "tersembunyi",
        "bonus": "bonus",
        "statuses": "Status",
        "none": "Tidak ada kiriman.",
        "overloaded": "**Belum dinilai tuntas** (komputer penilai terlalu sibuk, juga saat dinilai "
        "ulang; nilainya belum final, jalankan batch lagi untuk kiriman ini):",
        "attempted": "Mencoba",
        "mean_att": "Rata-rata yang mencoba",
        "not_attempted": "Tidak mencoba",
        "untouched": "starter tak diubah atau kosong",
        "missing": "tanpa file",
        "note": "Tingkat lulus dihitung atas kiriman yang mencoba latihannya; kiriman tanpa "
        "file latihan itu, atau dengan starter yang tidak diubah atau file kosong, "
        "dihitung terpisah.",
    },
    "en": {
        "title": "Class grading",
        "late": "Late submissions",
        "roster": "Roster",
        "roster_ok": "Every submission matches one student of the roster, and every student has "
        "a submission ({n}).",
        "absent": "In the roster, no submission",
        "unlisted": "Submissions not in the roster (in the LMS files without their identifiers)",
        "overloaded": "**Not fully graded** (the grading machine was overloaded, also when graded "
        "again; their scores are not final, run batch again for these submissions):",
        "subs": "submissions",
        "mean": "mean",
        "median": "median",
        "range": "range",
        "full": "full marks",
        "dist": "Score distribution",
        "score": "Score (%)",
        "count": "Submissions",
        "exercises": "Exercises",
        "exercise": "Exercise",
        "checks": "Checks, lowest pass rate first",
        "check": "Check",
        "kind": "Kind",
        "passed": "Passed",
        "rate": "Rate",
        "hidden": "hidden",
        "bonus": "bonus",
        "statuses": "Statuses",
        "none": "No submissions.",
        "attempted": "Attempted",
        "mean_att": "Mean of those who attempted",
        "not_attempted": "Not attempted",
        "untouched": "untouched starter or empty",
        "missing": "no file",
        "note": "Pass rates count the submissions that attempted the exercise; those without "
        "its file, or with the starter as handed out or an empty file, are counted "
        "apart.",
    },
}
BAR = 20


def _cell(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _bar(part: float, whole: float) -> str:
    return "█" * round(BAR * part / whole) if whole else ""


def roster_lines(match, lang: str) -> list[str]:
    """The roster against the class (grader.outcomes.roster.Match): who has no submission, which
    submissions the roster does not name."""
    w = LABELS[lang]
    lines = [f"### {w['roster']}", ""]
    if not match.absent and not match.unlisted:
        return lines + [w["roster_ok"].format(n=len(match.people)), ""]
    if match.absent:
        named = ", ".join(
            f"`{_cell(p.login)}`" + (f" ({_cell(p.name)})" if p.name else "") for p in match.absent
        )
        lines += [f"{w['absent']}: {named}", ""]
    if match.unlisted:
        lines += [f"{w['unlisted']}: " + ", ".join(f"`{_cell(s)}`" for s in match.unlisted), ""]
    return lines


def text(
    stats: ClassStats, lang: str, similarity=None, course=None, roster=None, causes=None
) -> str:
    """summary.md; similarity: the per-exercise pairs (similarity.compute()); course: the pairs
    ranked across the course (ranking.rank()), which stand in for them where given; roster: the
    roster matched (grader.outcomes.roster.Match); causes: the mistakes and causes the class hit
    most often (grader.report.classview.causes.count()), None to leave them out."""
    w, status = LABELS[lang], STATUS[lang]
    lines = [f"## {w['title']}", ""]
    if not stats.submissions:
        return "\n".join(lines + [w["none"], ""])
    lines += [
        f"{stats.submissions} {w['subs']}; {w['mean']} {stats.mean:.4g}/{stats.max_score:g}, "
        f"{w['median']} {stats.median:g}, {w['range']} {min(stats.scores):g}–"
        f"{max(stats.scores):g}; {w['full']}: {stats.full_marks}",
        "",
    ]
    if stats.overloaded:
        lines += [w["overloaded"] + " " + ", ".join(f"`{_cell(s)}`" for s in stats.overloaded), ""]
    if roster is not None:
        lines += roster_lines(roster, lang)
    if stats.late:
        lines += [f"### {w['late']}", ""]
        lines += [f"- `{_cell(sid)}`: {_cell(late_words(late, lang))}" for sid, late in stats.late]
        lines.append("")
    lines += [
        f"### {w['dist']}",
        "",
        f"| {w['score']} | {w['count']} | |",
        "|---|--:|---|",
    ]
    most = max(n for _, _, n in stats.distribution)
    for low, high, n in stats.distribution:
        label = "100" if low == high else f"{low:g}–{high:g}"
        lines.append(f"| {label} | {n} | {_bar(n, most)} |")
    lines += [
        "",
        f"### {w['exercises']}",
        "",
        w["note"],
        "",
        f"| {w['exercise']} | {w['attempted']} | {w['mean_att']} | {w['statuses']} "
        f"| {w['not_attempted']} |",
        "|---|--:|--:|---|---|",
    ]
    for e in stats.exercises:
        counts = ", ".join(f"{status[k]} {n}" for k, n in sorted(e.statuses.items()))
        others = ", ".join(f"{w[k]} {n}" for k, n in sorted(e.not_attempted.items()))
        mean = f"{e.mean:.3g}/{e.max_score:g}" if e.attempted else "–"
        lines.append(
            f"| {_cell(e.title.get(lang))} (`{e.id}`) | {e.attempted}/{stats.submissions}"
            f" | {mean} | {counts or '–'} | {others or '–'} |"
        )
    lines += [
        "",
        f"### {w['checks']}",
        "",
        f"| {w['check']} | {w['kind']} | {w['passed']} | {w['rate']} | |",
        "|---|---|--:|--:|---|",
    ]
    for c in stats.checks:
        tags = "".join(f" _({w[t]})_" for t in ("hidden", "bonus") if getattr(c, t))
        rate = f"{100 * c.rate:.0f}%" if c.total else "–"
        lines.append(
            f"| `{c.exercise}.{c.check}` {_cell(c.title.get(lang))}{tags} | `{c.kind}` "
            f"| {c.passed}/{c.total} | {rate} | {_bar(c.passed, c.total)} |"
        )
    if causes is not None:
        from grader.report.classview import causes as causes_of

        lines += ["", *causes_of.summary_lines(causes, lang)]
    if course is not None:  # pairs of submissions to look at (batch computes them)
        from grader.report.classview import pairsview, ranking

        lines += ["", *pairsview.summary_lines(course, lang, ranking.DEFAULT_THRESHOLD)]
    elif similarity is not None:
        from grader.report.classview import similarity as alike

        lines += ["", *alike.summary_lines(similarity, lang)]
    return "\n".join(lines) + "\n"


def write(
    path: Path,
    stats: ClassStats,
    lang: str,
    similarity=None,
    course=None,
    roster=None,
    causes=None,
) -> None:
    atomic_write(Path(path), text(stats, lang, similarity, course, roster, causes))

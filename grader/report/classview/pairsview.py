"""The pairs ranked across the course (ranking.py) as text: Markdown lines for summary.md and an
HTML section shared by report.html and similarity.html. Formats only; ranking.py computes."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from grader.common import safetext
from grader.report.classview.ranking import MIN_OVERLAP, CoursePair

TOP = 5
"""Pairs summary.md names."""
MAX_ROWS = 200
"""Pairs a page lists; the rest are counted."""

WORDS = {
    "id": {
        "md_title": "Kode yang mirip di seluruh kursus (untuk dilihat)",
        "title": "Pasangan yang mirip di seluruh kursus",
        "note": "Pasangan diurutkan menurut banyaknya kode milik mereka sendiri yang sama, "
        "dijumlahkan atas semua latihan, setelah nama, urutan fungsi dan format kode "
        "dinormalkan, dan setelah kode starter, jawaban kursus dan kode yang ditulis hampir "
        "semua kelas tidak dihitung. Kemiripan adalah alasan untuk melihat, bukan kesimpulan.",
        "line": "Ditampilkan: pasangan dengan paling sedikit {n} potongan sama dan lebih dari "
        "{t} kode mereka sendiri sama.",
        "none": "Tidak ada pasangan di atas ambang di seluruh kursus.",
        "md_top": "Paling mirip:",
        "md_where": "kode per latihan: `similarity.html`",
        "pair": "Pasangan",
        "overlap": "Kode sama",
        "share": "Bagian",
        "exercises": "Latihan (bagian kode sendiri yang sama)",
        "item": "{a} ↔ {b}: {o} potongan sama di {e} latihan, {s} kode mereka sendiri",
        "more": "… dan {n} pasangan lagi.",
    },
    "en": {
        "md_title": "Similar code across the course (to look at)",
        "title": "Pairs alike across the course",
        "note": "Pairs ranked by how much of their own code they have in common, summed over "
        "every exercise, once names, the order of functions and the formatting are normalised "
        "and the starter's code, the course's answers and code nearly the whole class wrote are "
        "left out. A similarity is a reason to look, not a finding.",
        "line": "Listed: pairs with at least {n} pieces in common and more than {t} of their "
        "own code alike.",
        "none": "No pair above the threshold across the course.",
        "md_top": "Most similar:",
        "md_where": "the code, exercise by exercise: `similarity.html`",
        "pair": "Pair",
        "overlap": "In common",
        "share": "Share",
        "exercises": "Exercises (share of own code alike)",
        "item": "{a} ↔ {b}: {o} pieces in common in {e} exercise(s), {s} of their own code",
        "more": "… and {n} more pairs.",
    },
}

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", safetext.name(text))


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def summary_lines(
    pairs: Sequence[CoursePair], lang: str, threshold: float, top: int = TOP
) -> list[str]:
    """summary.md's lines: the `top` pairs across the course, each with its exercises."""
    w = WORDS[lang]
    lines = [f"### {w['md_title']}", ""]
    if not pairs:
        return lines + [w["none"], ""]
    lines += [w["line"].format(n=MIN_OVERLAP, t=_pct(threshold)), "", w["md_top"], ""]
    for p in pairs[:top]:
        where = ", ".join(f"`{s.exercise}` {_pct(s.share)}" for s in p.detail)
        item = w["item"].format(
            a=_md(p.a), b=_md(p.b), o=p.overlap, e=len(p.detail), s=_pct(p.share)
        )
        lines.append(f"- {item}: {where}")
    return lines + ["", w["md_where"], ""]


def _h(text: str) -> str:
    return safetext.html(text, 2000)


def section(
    pairs: Sequence[CoursePair],
    lang: str,
    threshold: float,
    link: Callable[[str], str] | None = None,
    table_id: str = "course-pairs",
) -> str:
    """An HTML section (h2, note, table) of the ranking; link(exercise) gives the href of an
    exercise's detail (similarity.html's sections), or None for plain names."""
    w = WORDS[lang]
    head = (
        f"<h2>{_h(w['title'])}</h2><p class=note>{_h(w['note'])} "
        f"{_h(w['line'].format(n=MIN_OVERLAP, t=_pct(threshold)))}</p>"
    )
    if not pairs:
        return head + f"<p>{_h(w['none'])}</p>"
    rows = []
    for n, p in enumerate(pairs[:MAX_ROWS], 1):
        where = ", ".join(
            (
                f'<a href="{_h(link(s.exercise))}"><code>{_h(s.exercise)}</code></a>'
                if link
                else f"<code>{_h(s.exercise)}</code>"
            )
            + f" {_pct(s.share)}"
            for s in p.detail
        )
        rows.append(
            f"<tr><td class=n>{n}</td><td><code>{_h(safetext.name(p.a))}</code> ↔ "
            f"<code>{_h(safetext.name(p.b))}</code></td><td class=n>{p.overlap}</td>"
            f"<td class=n>{_pct(p.share)}</td><td>{where}</td></tr>"
        )
    more = (
        f"<p class=note>{_h(w['more'].format(n=len(pairs) - MAX_ROWS))}</p>"
        if len(pairs) > MAX_ROWS
        else ""
    )
    return (
        head + f"<table id={table_id}><tr><th class=n>#</th><th>{_h(w['pair'])}</th>"
        f"<th class=n>{_h(w['overlap'])}</th><th class=n>{_h(w['share'])}</th>"
        f"<th>{_h(w['exercises'])}</th></tr>{''.join(rows)}</table>{more}"
    )

"""The parts of report.html that make it the class's front page: a table of every student (their
total, each exercise, lateness and a link to their feedback file), each exercise's score
distribution, and when the class pushed against the deadline. Formats only: the rows and the
numbers come from grader.outcomes.classstats; no script (the page's orderings are two copies of
the table, the second folded in a details element), every text escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from urllib.parse import quote

from grader.common import safetext
from grader.outcomes.classstats import ClassStats, Pushed, Student

WORDS = {
    "id": {
        "students": "Mahasiswa",
        "students_note": "Diurutkan menurut nama; urutan menurut nilai ada di bawah tabel.",
        "by_total": "Urut menurut nilai total, tertinggi dulu",
        "student": "Mahasiswa",
        "total": "Total",
        "late": "Terlambat",
        "feedback": "Umpan balik",
        "open": "buka",
        "late_yes": "{n} commit setelah tenggat",
        "graded_late": "dinilai terlambat",
        "unreadable": "repositori tak terbaca",
        "dists": "Sebaran nilai per latihan",
        "dists_note": "Atas kiriman yang mengerjakan latihan itu; batang hijau: nilai penuh.",
        "timeline": "Kiriman terhadap tenggat",
        "timeline_note": "Titik: commit yang dinilai; merah: ada commit setelah tenggat "
        "(lingkaran: commit terakhir); garis: tenggat.",
        "deadline": "tenggat",
        "no_dates": "Tanpa tenggat, atau tidak ada repositori git: tidak ada tanggal commit.",
    },
    "en": {
        "students": "Students",
        "students_note": "By name; the same table by total follows it.",
        "by_total": "By total, highest first",
        "student": "Student",
        "total": "Total",
        "late": "Late",
        "feedback": "Feedback",
        "open": "open",
        "late_yes": "{n} commit(s) after the deadline",
        "graded_late": "graded late",
        "unreadable": "repository unreadable",
        "dists": "Score distribution per exercise",
        "dists_note": "Over the submissions that attempted the exercise; green: full marks.",
        "timeline": "Submissions against the deadline",
        "timeline_note": "Dots: the commit graded; red: commits after the deadline (ring: the "
        "latest commit); line: the deadline.",
        "deadline": "deadline",
        "no_dates": "No deadline, or no git repositories: no commit dates.",
    },
}
STYLE = """
.wide{overflow-x:auto}.wide table{font-size:.82em}.wide th{white-space:nowrap}
.lateflag{color:#b3261e}
.dist{display:inline-flex;gap:2px;align-items:flex-end;height:34px;vertical-align:middle}
.dist>span{display:inline-block;width:16px;background:#4c72b0}.dist>span.full{background:#2e8b57}
"""
TIMELINE_W, TIMELINE_H = 880, 120


def _t(text, limit: int = 500) -> str:
    return safetext.html(text, limit)


def _late(s: Student, lang: str) -> str:
    w = WORDS[lang]
    late = s.late or {}
    if late.get("unreadable"):
        return f"<span class=lateflag>{_t(w['unreadable'])}</span>"
    parts = []
    if late.get("later_commits"):
        parts.append(w["late_yes"].format(n=late["later_commits"]))
    if late.get("graded_late"):
        parts.append(w["graded_late"])
    return f"<span class=lateflag>{_t('; '.join(parts))}</span>" if parts else ""


def _table(rows: Sequence[Student], exercises: Sequence[str], files: dict, lang: str, key: str):
    w = WORDS[lang]
    head = "".join(f"<th class=n><code>{_t(e)}</code></th>" for e in exercises)
    out = [
        f"<div class=wide><table id={key}><tr><th>{_t(w['student'])}</th>"
        f"<th class=n>{_t(w['total'])}</th>{head}<th>{_t(w['late'])}</th>"
        f"<th>{_t(w['feedback'])}</th></tr>"
    ]
    for s in rows:
        cells = [
            f"<td class=n>{'' if (got := s.exercises.get(e)) is None else f'{got:g}'}</td>"
            for e in exercises
        ]
        link = "feedback/" + quote(files[s.submission] + ".md")
        who = _t(s.name) + (
            f" <span class=tag>{_t(safetext.name(s.submission))}</span>"
            if s.name != s.submission
            else ""
        )
        out.append(
            f"<tr><td>{who}</td><td class=n>{s.score:.4g}/{s.max_score:g}</td>{''.join(cells)}"
            f'<td>{_late(s, lang)}</td><td><a href="{_t(link)}">{_t(w["open"])}</a></td></tr>'
        )
    return "".join(out) + "</table></div>"


def students(rows: Sequence[Student], exercises: Sequence[str], lang: str) -> str:
    """The class's table by name, and the same by total in a details element."""
    w = WORDS[lang]
    files = safetext.file_names(s.submission for s in rows)
    by_total = sorted(rows, key=lambda s: (-s.score, s.name.casefold(), s.submission))
    return (
        f"<h2 id=students>{_t(w['students'])}</h2><p class=note>{_t(w['students_note'])}</p>"
        + _table(rows, exercises, files, lang, "students-by-name")
        + f"<details><summary>{_t(w['by_total'])}</summary>"
        + _table(by_total, exercises, files, lang, "students-by-total")
        + "</details>"
    )


def distributions(stats: ClassStats, lang: str) -> str:
    """Per exercise, its attempts' scores in bins, as small bars with the counts beside."""
    w = WORDS[lang]
    rows = []
    for e in stats.exercises:
        bins = e.bins
        most = max((n for _, _, n in bins), default=0) or 1
        bars = "".join(
            f'<span class="{"full" if low == high else ""}" title="{low:g}–{high:g}%: {n}" '
            f'style="height:{max(1, round(32 * n / most))}px"></span>'
            for low, high, n in bins
        )
        counts = " · ".join(str(n) for _, _, n in bins)
        rows.append(
            f"<tr><td><code>{_t(e.id)}</code></td><td><span class=dist>{bars}</span></td>"
            f"<td class=n>{counts}</td><td class=n>{e.attempted}</td></tr>"
        )
    labels = (
        " · ".join(
            "100" if low == high else f"{low:g}–{high:g}"
            for low, high, _ in stats.exercises[0].bins
        )
        if stats.exercises
        else ""
    )
    return (
        f"<h2>{_t(w['dists'])}</h2><p class=note>{_t(w['dists_note'])}</p>"
        f"<table id=distributions><tr><th></th><th></th><th class=n>{_t(labels)} %</th>"
        f"<th class=n>n</th></tr>{''.join(rows)}</table>"
    )


def timeline(pushes: Sequence[Pushed], deadline: datetime | None, lang: str) -> str:
    """The class's graded commits on one time axis (inline SVG), the deadline a line."""
    w = WORDS[lang]
    head = f"<h2>{_t(w['timeline'])}</h2>"
    if not pushes:
        return head + f"<p class=note>{_t(w['no_dates'])}</p>"
    times = [p.committed for p in pushes] + [p.latest for p in pushes if p.latest is not None]
    if deadline is not None:
        times.append(deadline)
    first, last = min(times), max(times)
    span = (last - first).total_seconds() or 1.0
    left, right, axis = 20, TIMELINE_W - 20, TIMELINE_H - 30

    def x(when: datetime) -> float:
        return left + (right - left) * (when - first).total_seconds() / span

    parts = [
        f'<svg id=timeline viewBox="0 0 {TIMELINE_W} {TIMELINE_H}" width="{TIMELINE_W}" '
        f'height="{TIMELINE_H}" role="img" aria-label="{_t(w["timeline"])}" '
        'font-family="sans-serif" font-size="11">',
        f'<line x1="{left}" y1="{axis}" x2="{right}" y2="{axis}" stroke="#333"/>',
    ]
    if deadline is not None:
        dx = x(deadline)
        parts.append(
            f'<line x1="{dx:.1f}" y1="8" x2="{dx:.1f}" y2="{axis + 4}" stroke="#b3261e" '
            f'stroke-dasharray="4 3"/><text x="{dx:.1f}" y="{TIMELINE_H - 4}" '
            f'text-anchor="middle" fill="#b3261e">{_t(w["deadline"])}</text>'
        )
    for n, p in enumerate(pushes):
        y = axis - 10 - (n % 6) * 10
        colour = "#b3261e" if p.late else "#2e6fb0"
        parts.append(
            f'<circle cx="{x(p.committed):.1f}" cy="{y}" r="4" fill="{colour}">'
            f"<title>{_t(safetext.name(p.submission))}: {_t(p.committed.isoformat())}</title>"
            "</circle>"
        )
        if p.latest is not None:
            parts.append(
                f'<circle cx="{x(p.latest):.1f}" cy="{y}" r="4" fill="none" stroke="{colour}">'
                f"<title>{_t(safetext.name(p.submission))}: {_t(p.latest.isoformat())}</title>"
                "</circle>"
            )
    for when, anchor in ((first, "start"), (last, "end")):
        parts.append(
            f'<text x="{x(when):.1f}" y="{axis + 14}" text-anchor="{anchor}">'
            f"{_t(when.strftime('%Y-%m-%d %H:%M'))}</text>"
        )
    parts.append("</svg>")
    return head + f"<p class=note>{_t(w['timeline_note'])}</p><figure>{''.join(parts)}</figure>"

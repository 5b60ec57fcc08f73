"""The class report, OUT/report.html: one static page a teacher opens from disk.

It opens on the class's table of students (frontpage.py: totals, exercises, lateness, a link
to each feedback file). Everything is inline (the CSS, the histogram as a base64 PNG drawn with
matplotlib's Agg backend, or as inline SVG where matplotlib is not installed), the page runs no
script, and its Content-Security-Policy lets it load nothing from anywhere: no server, no
network. This module puts the page together; its sections live beside it: the score histogram
and the pass rates lowest first (rates.py), the mistakes and causes the class hit most often
(causes.py), the commits against the deadline (frontpage.py), the pairs ranked across the course
(pairsview.py) and, with a gradebook, what changed since the previous run (changes.py); here are
the late submissions and the per-exercise similar pairs. Wholly in the course's language, in
summary.md's words (words.py).

Submission names, messages, causes and every other text that reaches the page is escaped: a
submission named `<script>` is shown as that text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from grader.common import safetext
from grader.outcomes import classstats
from grader.outcomes.classstats import ClassStats
from grader.outcomes.results import SubmissionResult
from grader.report.classview import causes as causes_of
from grader.report.classview import changes as changes_since
from grader.report.classview import frontpage, pairsview, ranking, rates
from grader.report.classview.causes import Cause
from grader.report.classview.ranking import CoursePair
from grader.report.classview.words import LABELS, STYLE, code, t

if TYPE_CHECKING:
    from grader.outcomes.gradebook import Change

FILE = "report.html"
"""The page's name in the output folder."""
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'"
)
"""No script, no request: only the inline style and the inline image (data: URLs)."""
count_causes = causes_of.count
"""The causes the page lists by default (causes.count)."""
cause_meaning = causes_of.meaning


def _late(late: Sequence[tuple[str, str]] | None, lang: str) -> str:
    w = LABELS[lang]
    head = f"<h2>{t(w['late'])}</h2>"
    if late is None:
        return head + f"<p class=note>{t(w['no_deadline'])}</p>"
    if not late:
        return head + f"<p>{t(w['no_late'])}</p>"
    rows = "".join(f"<tr><td>{code(sub)}</td><td>{t(words)}</td></tr>" for sub, words in late)
    return (
        head + f"<table id=late><tr><th>{t(w['submission'])}</th><th>{t(w['details'])}</th>"
        f"</tr>{rows}</table>"
    )


def _score(score: float) -> str:
    """A similarity score: a fraction (0 to 1) as a percentage, anything else as it is."""
    return f"{100 * score:.0f}%" if 0 <= score <= 1 else f"{score:g}"


def _detail(exercise: str) -> str:
    """Where similarity.html shows an exercise's pairs side by side."""
    return "similarity.html#ex-" + re.sub(r"[^A-Za-z0-9_-]", "_", exercise)


def _similarity(pairs: Sequence[tuple[str, str, str, float]], lang: str) -> str:
    w = LABELS[lang]
    head = f"<h2>{t(w['similar'])}</h2><p class=note>{t(w['similar_note'])}</p>"
    if not pairs:
        return head + f"<p>{t(w['no_similar'])}</p>"
    ranked = sorted(pairs, key=lambda p: (-float(p[3]), str(p[0]), str(p[1]), str(p[2])))
    rows = "".join(
        f"<tr><td>{code(ex)}</td><td>{code(a)}</td><td>{code(b)}</td>"
        f"<td class=n>{t(_score(float(score)))}</td></tr>"
        for ex, a, b, score in ranked
    )
    return (
        head + f"<table id=similarity><tr><th>{t(w['exercise'])}</th>"
        f"<th>{t(w['submission'])}</th><th>{t(w['submission'])}</th>"
        f"<th class=n>{t(w['similarity'])}</th></tr>{rows}</table>"
    )


def text(
    results: Sequence[SubmissionResult],
    stats: ClassStats,
    lang: str,
    *,
    causes: Sequence[Cause] | None = None,
    late: Sequence[tuple[str, str]] | None = None,
    similarity: Sequence[tuple[str, str, str, float]] | None = None,
    changes: Sequence[Change] | None = None,
    course: Sequence[CoursePair] | None = None,
    names: Mapping[str, str] | None = None,
    deadline: datetime | None = None,
    attempt=None,
) -> str:
    """The page as one HTML string; see write()."""
    w = LABELS[lang]
    body = [f"<h1>{t(w['page'])}</h1>"]
    if not stats.submissions:
        body.append(f"<p>{t(w['none'])}</p>")
    else:
        body.append(
            f"<p class=lead>{stats.submissions} {t(w['subs'])}; {t(w['mean'])} "
            f"{stats.mean:.4g}/{stats.max_score:g}, {t(w['median'])} {stats.median:g}, "
            f"{t(w['range'])} {min(stats.scores):g}–{max(stats.scores):g}; "
            f"{t(w['full'])}: {stats.full_marks}</p>"
        )
        if stats.overloaded:
            who = ", ".join(code(s) for s in stats.overloaded)
            body.append(f"<p class=warn>{t(w['overloaded'].replace('**', ''))} {who}</p>")
        order = [e.id for e in stats.exercises]
        body.append(frontpage.students(classstats.students(list(results), names), order, lang))
        body.append(f"<h2>{t(w['dist'])}</h2>{rates.histogram(stats, lang)}")
        body.append(frontpage.distributions(stats, lang))
        body.append(rates.exercises(stats, lang))
        body.append(rates.checks(stats, lang))
        body.append(
            causes_of.section(count_causes(results, attempt) if causes is None else causes, lang)
        )
        body.append(_late(late, lang))
        if late is not None:
            body.append(
                frontpage.timeline(classstats.pushes(list(results), deadline), deadline, lang)
            )
        if course is not None:
            body.append(pairsview.section(course, lang, ranking.DEFAULT_THRESHOLD, _detail))
        elif similarity is not None:
            body.append(_similarity(similarity, lang))
        if changes is not None:
            body.append(changes_since.section(changes, lang))
    return (
        f'<!DOCTYPE html>\n<html lang="{t(lang)}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="referrer" content="no-referrer">\n<title>{t(w["page"])}</title>\n'
        f"<style>{STYLE}{frontpage.STYLE}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


def write(
    path: Path,
    results: Sequence[SubmissionResult],
    stats: ClassStats,
    lang: str,
    *,
    causes: Sequence[Cause] | None = None,
    late: Sequence[tuple[str, str]] | None = None,
    similarity: Sequence[tuple[str, str, str, float]] | None = None,
    changes: Sequence[Change] | None = None,
    course: Sequence[CoursePair] | None = None,
    names: Mapping[str, str] | None = None,
    deadline: datetime | None = None,
    attempt=None,
) -> None:
    """Write the class report to `path` (OUT/report.html), in one piece.

    stats: classstats.compute(results, attempt=manifest.attempt), as for summary.md. causes:
    the causes to list instead of count_causes(results). late: (submission, text) per late
    submission; None when the run had no deadline (the page says so), [] when nobody was late.
    similarity: (exercise, submission a, submission b, score) per pair, the score a fraction
    from 0 to 1 (shown as a percentage); None leaves the section out. changes: a gradebook's
    grader.outcomes.gradebook.changes() for this run; None (no gradebook) leaves it out.
    course: the pairs ranked across the course (ranking.rank()), shown instead of `similarity`.
    names: submission id -> the student's name in the table of students (default: the id).
    deadline: drawn on the timeline of commits (which the late records give). attempt: see
    count_causes().
    """
    safetext.atomic_write(
        Path(path),
        text(
            results,
            stats,
            lang,
            causes=causes,
            late=late,
            similarity=similarity,
            changes=changes,
            course=course,
            names=names,
            deadline=deadline,
            attempt=attempt,
        ),
    )

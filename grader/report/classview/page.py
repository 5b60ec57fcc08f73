"""The class report, OUT/report.html: one static page a teacher opens from disk.

It opens on the class's table of students (frontpage.py: totals, exercises, lateness, a link
to each feedback file). Everything is inline (the CSS, the histogram as a base64 PNG drawn with matplotlib's Agg
backend, or as inline SVG where matplotlib is not installed), the page runs no script, and its
Content-Security-Policy lets it load nothing from anywhere: no server, no network. It shows the
score histogram, each exercise's and each check's pass rate lowest first (from ClassStats, so
rates count the submissions that attempted the exercise, as summary.md does), the named causes
the class hit most often, late submissions, pairs of similar submissions and, with a gradebook,
what changed since the previous run; wholly in the course's language, in summary.md's words.

Submission names, messages, causes and every other text that reaches the page is escaped: a
submission named `<script>` is shown as that text.
"""

from __future__ import annotations

import base64
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from grader.common import safetext
from grader.outcomes import classstats
from grader.outcomes.classstats import ClassStats, ExerciseStats
from grader.outcomes.results import SubmissionResult
from grader.report import markdown
from grader.report.classview import frontpage, pairsview, ranking
from grader.report.classview.histogram import _bin_label, histogram_png, histogram_svg

__all__ = ["histogram_png", "histogram_svg", "text", "write", "count_causes", "cause_meaning"]
from grader.report.classview.ranking import CoursePair
from grader.report.statuswords import STATUS

if TYPE_CHECKING:
    from grader.outcomes.gradebook import Change

FILE = "report.html"
"""The page's name in the output folder."""
TOP_CAUSES = 20
"""Causes listed; the rest are counted in one line."""
FAILED = ("failed", "error", "timeout")
"""Check statuses whose cause counts: a check that ran and did not pass."""
CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'"
)
"""No script, no request: only the inline style and the inline image (data: URLs)."""

_WORDS = {
    "id": {
        "page": "Laporan kelas",
        "exercises_rank": "Latihan, tingkat lulus terendah dulu",
        "hist_alt": "Histogram nilai kelas",
        "table": "Tabel",
        "causes": "Penyebab yang paling sering",
        "causes_note": "Dihitung atas pemeriksaan terlihat yang tidak lulus (gagal, galat atau "
        "melebihi waktu); satu penyebab bisa memblokir beberapa pemeriksaan sekaligus.",
        "cause": "Penyebab",
        "meaning": "Artinya",
        "n_checks": "Pemeriksaan",
        "n_subs": "Kiriman",
        "no_causes": "Tidak ada penyebab bernama.",
        "more_causes": "dan {n} penyebab lain",
        "late": "Kiriman terlambat",
        "no_deadline": "Tanpa tenggat.",
        "no_late": "Tidak ada kiriman terlambat.",
        "submission": "Kiriman",
        "details": "Keterangan",
        "similar": "Pasangan kiriman yang mirip",
        "similar_note": "Pasangan untuk dilihat sendiri, bukan temuan.",
        "no_similar": "Tidak ada pasangan yang mirip.",
        "similarity": "Kemiripan",
        "changes": "Yang berubah sejak penilaian sebelumnya",
        "no_changes": "Tidak ada kiriman yang berubah sejak penilaian sebelumnya.",
        "score_change": "Nilai",
        "since": "Sejak run",
        "flips": "Pemeriksaan yang berubah",
        "because": "Sebab",
        "no_flip": "tidak ada pemeriksaan yang berubah",
        "timing": "berkas, spesifikasi, seed dan versi sama (tergantung waktu?)",
        "absent": "tidak ada",
        "file_changed": "{ex}: berkas siswa diubah",
        "file_added": "{ex}: berkas siswa ditambahkan",
        "file_removed": "{ex}: berkas siswa dihapus",
        "spec_changed": "{ex}: spesifikasi latihan berubah",
        "c_unwritten": "{fn} belum ditulis (NotImplementedError)",
        "c_raised": "{fn} memunculkan {what}",
        "c_forbidden": "{fn} memanggil API terlarang {what}",
        "c_modes": "{fn} mengubah mode global: {what}",
        "c_caller": "{fn} mengubah objek milik pemanggil",
        "c_overloaded": "komputer penilai terlalu sibuk (bukan kesalahan siswa)",
    },
    "en": {
        "page": "Class report",
        "exercises_rank": "Exercises, lowest pass rate first",
        "hist_alt": "Histogram of the class's scores",
        "table": "Table",
        "causes": "Causes the class hit most often",
        "causes_note": "Counted over the visible checks that did not pass (failed, error or "
        "timed out); one cause can block several checks at once.",
        "cause": "Cause",
        "meaning": "Meaning",
        "n_checks": "Checks",
        "n_subs": "Submissions",
        "no_causes": "No named cause.",
        "more_causes": "and {n} more causes",
        "late": "Late submissions",
        "no_deadline": "No deadline.",
        "no_late": "No late submissions.",
        "submission": "Submission",
        "details": "Details",
        "similar": "Similar pairs of submissions",
        "similar_note": "Pairs to look at yourself, not findings.",
        "no_similar": "No similar pairs.",
        "similarity": "Similarity",
        "changes": "What changed since the previous run",
        "no_changes": "No submission changed since its previous run.",
        "score_change": "Score",
        "since": "Since run",
        "flips": "Checks that flipped",
        "because": "Because",
        "no_flip": "no check flipped",
        "timing": "same files, specs, seed and versions (timing-dependent?)",
        "absent": "absent",
        "file_changed": "{ex}: the student's file was changed",
        "file_added": "{ex}: the student's file was added",
        "file_removed": "{ex}: the student's file was removed",
        "spec_changed": "{ex}: the exercise spec changed",
        "c_unwritten": "{fn} is not written yet (NotImplementedError)",
        "c_raised": "{fn} raised {what}",
        "c_forbidden": "{fn} called the forbidden {what}",
        "c_modes": "{fn} left global modes changed: {what}",
        "c_caller": "{fn} changed the caller's objects",
        "c_overloaded": "the grading machine was overloaded (not the student's doing)",
    },
}
LABELS = {lang: {**markdown.LABELS[lang], **words} for lang, words in _WORDS.items()}
"""summary.md's words (grader.report.markdown.LABELS) and the page's own."""

_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;
background:#f6f7f9;margin:0}
main{max-width:1100px;margin:0 auto;padding:24px 28px 48px;background:#fff}
h1{font-size:1.6em;margin:.2em 0 .4em}h2{font-size:1.2em;margin:1.6em 0 .5em;
border-bottom:1px solid #dde1e8;padding-bottom:.2em}
.lead{font-size:1.05em}.note{color:#586174;font-size:.92em}.warn{background:#fff4d6;
border-left:4px solid #e0a800;padding:.5em .8em}
table{border-collapse:collapse;width:100%;font-size:.93em}
th,td{border-bottom:1px solid #e6e9ef;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f0f2f6;font-weight:600}.n{text-align:right;white-space:nowrap}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f2f6;
padding:0 .25em;border-radius:3px;overflow-wrap:anywhere}
.tag{font-size:.8em;color:#586174;font-style:italic}
.bar{display:inline-block;width:120px;height:.8em;background:#e6e9ef;border-radius:2px;
vertical-align:middle}.bar>span{display:block;height:100%;border-radius:2px}
figure{margin:.5em 0}figure img,figure svg{max-width:100%;height:auto}
details{margin:.4em 0}summary{cursor:pointer;color:#586174}
"""


@dataclass(frozen=True)
class Cause:
    """A named cause (CheckResult.cause) in one exercise, and how often the class hit it."""

    exercise: str
    cause: str
    checks: int
    """Visible checks that did not pass with this cause."""
    submissions: int
    """Submissions with at least one of them."""


def count_causes(results: Sequence[SubmissionResult], attempt=None) -> list[Cause]:
    """Causes over the visible checks that ran and did not pass (failed, error, timeout), most
    submissions first, then most checks, then by exercise and cause. A hidden check's cause is
    never counted (batch removes it anyway: it names what the worker sent). attempt(submission,
    exercise) (Manifest.attempt): only the submissions that attempted the exercise count, so an
    untouched starter's NotImplementedError is no mistake of the class's."""
    checks: Counter = Counter()
    who: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in results:
        for e in r.exercises:
            if e.untouched or (attempt is not None and attempt(r.submission, e.id) != "attempted"):
                continue
            for c in e.checks:
                if c.hidden or c.status not in FAILED or not c.cause:
                    continue
                checks[(e.id, c.cause)] += 1
                who[(e.id, c.cause)].add(r.submission)
    ranked = sorted(checks, key=lambda k: (-len(who[k]), -checks[k], k))
    return [Cause(ex, cause, checks[(ex, cause)], len(who[(ex, cause)])) for ex, cause in ranked]


def _t(text, limit: int = 2000) -> str:
    return safetext.html(text, limit)


def _code(text, limit: int = 300) -> str:
    return f"<code>{_t(text, limit)}</code>"


def _rate_bar(part: float, whole: float) -> str:
    if not whole:
        return ""
    share = part / whole
    hue = round(120 * share)  # red (nobody) to green (everybody)
    return (
        f'<span class="bar"><span style="width:{100 * share:.0f}%;'
        f'background:hsl({hue},55%,45%)"></span></span>'
    )


def _histogram(stats: ClassStats, lang: str) -> str:
    w = LABELS[lang]
    png = histogram_png(stats, LABELS[lang])
    if png is None:
        image = histogram_svg(stats, LABELS[lang])
    else:
        data = base64.b64encode(png).decode("ascii")
        image = (
            f'<img id="histogram" alt="{_t(w["hist_alt"])}" width="880" '
            f'src="data:image/png;base64,{data}">'
        )
    rows = "".join(
        f"<tr><td>{_t(_bin_label(low, high))}</td><td class=n>{n}</td></tr>"
        for low, high, n in stats.distribution
    )
    return (
        f"<figure>{image}</figure><details><summary>{_t(w['table'])}</summary>"
        f"<table><tr><th>{_t(w['score'])}</th><th>{_t(w['count'])}</th></tr>{rows}"
        "</table></details>"
    )


def _exercise_rate(e: ExerciseStats) -> float:
    return e.statuses["passed"] / e.attempted if e.attempted else 0.0


def _exercises(stats: ClassStats, lang: str) -> str:
    w, status = LABELS[lang], STATUS[lang]
    order = {e.id: i for i, e in enumerate(stats.exercises)}
    ranked = sorted(
        stats.exercises, key=lambda e: (not e.attempted, _exercise_rate(e), order[e.id])
    )
    rows = []
    for e in ranked:
        passed = e.statuses["passed"]
        rate = f"{100 * _exercise_rate(e):.0f}%" if e.attempted else "–"
        mean = f"{e.mean:.3g}/{e.max_score:g}" if e.attempted else "–"
        counts = ", ".join(f"{status.get(k, k)} {n}" for k, n in sorted(e.statuses.items()))
        others = ", ".join(f"{w.get(k, k)} {n}" for k, n in sorted(e.not_attempted.items()))
        rows.append(
            f"<tr><td>{_t(e.title.get(lang))} {_code(e.id)}</td>"
            f"<td class=n>{passed}/{e.attempted}</td><td class=n>{rate}</td>"
            f"<td>{_rate_bar(passed, e.attempted)}</td>"
            f"<td class=n>{e.attempted}/{stats.submissions}</td><td class=n>{mean}</td>"
            f"<td>{_t(counts or '–')}</td><td>{_t(others or '–')}</td></tr>"
        )
    return (
        f"<h2>{_t(w['exercises_rank'])}</h2><p class=note>{_t(w['note'])}</p>"
        f"<table id=exercises><tr><th>{_t(w['exercise'])}</th>"
        f"<th class=n>{_t(w['passed'])}</th><th class=n>{_t(w['rate'])}</th><th></th>"
        f"<th class=n>{_t(w['attempted'])}</th><th class=n>{_t(w['mean_att'])}</th>"
        f"<th>{_t(w['statuses'])}</th>"
        f"<th>{_t(w['not_attempted'])}</th></tr>{''.join(rows)}</table>"
    )


def _checks(stats: ClassStats, lang: str) -> str:
    w, status = LABELS[lang], STATUS[lang]
    rows = []
    for c in stats.checks:
        tags = "".join(
            f' <span class="tag">({_t(w[t])})</span>' for t in ("hidden", "bonus") if getattr(c, t)
        )
        rate = f"{100 * c.rate:.0f}%" if c.total else "–"
        others = ", ".join(
            f"{status.get(k, k)} {n}" for k, n in sorted(c.statuses.items()) if k != "passed"
        )
        rows.append(
            f'<tr class="check"><td>{_code(f"{c.exercise}.{c.check}")} '
            f"{_t(c.title.get(lang))}{tags}</td><td>{_code(c.kind)}</td>"
            f"<td class=n>{c.passed}/{c.total}</td><td class=n>{rate}</td>"
            f"<td>{_rate_bar(c.passed, c.total)}</td><td>{_t(others or '–')}</td></tr>"
        )
    return (
        f"<h2>{_t(w['checks'])}</h2><table id=checks><tr><th>{_t(w['check'])}</th>"
        f"<th>{_t(w['kind'])}</th><th class=n>{_t(w['passed'])}</th>"
        f"<th class=n>{_t(w['rate'])}</th><th></th>"
        f"<th>{_t(w['statuses'])}</th></tr>{''.join(rows)}</table>"
    )


def cause_meaning(cause: str, lang: str) -> str:
    """A cause key in words (plain text, not yet escaped): "raised:ValueError:f" is "f raised
    ValueError"; a key of another form is left as it is."""
    w = LABELS[lang]
    if cause == "overloaded":
        return w["c_overloaded"]
    kind, _, rest = cause.partition(":")
    what, _, fn = rest.rpartition(":")
    if kind == "caller" and rest:
        return w["c_caller"].format(fn=rest)
    if not fn or not what:
        return cause
    if kind == "raised":
        key = "c_unwritten" if what == "NotImplementedError" else "c_raised"
        return w[key].format(fn=fn, what=what)
    if kind == "forbidden":
        return w["c_forbidden"].format(fn=fn, what=what)
    if kind == "modes":
        return w["c_modes"].format(fn=fn, what=what.replace(",", ", "))
    return cause


def _causes(causes: Sequence[Cause], lang: str) -> str:
    w = LABELS[lang]
    head = f"<h2>{_t(w['causes'])}</h2><p class=note>{_t(w['causes_note'])}</p>"
    if not causes:
        return head + f"<p>{_t(w['no_causes'])}</p>"
    rows = "".join(
        f"<tr><td>{_code(c.exercise)}</td><td>{_code(c.cause)}</td>"
        f"<td>{_t(cause_meaning(c.cause, lang))}</td><td class=n>{c.submissions}</td>"
        f"<td class=n>{c.checks}</td></tr>"
        for c in causes[:TOP_CAUSES]
    )
    more = (
        f"<p class=note>{_t(w['more_causes'].format(n=len(causes) - TOP_CAUSES))}</p>"
        if len(causes) > TOP_CAUSES
        else ""
    )
    return (
        head + f"<table id=causes><tr><th>{_t(w['exercise'])}</th><th>{_t(w['cause'])}</th>"
        f"<th>{_t(w['meaning'])}</th><th class=n>{_t(w['n_subs'])}</th>"
        f"<th class=n>{_t(w['n_checks'])}</th>"
        f"</tr>{rows}</table>{more}"
    )


def _late(late: Sequence[tuple[str, str]] | None, lang: str) -> str:
    w = LABELS[lang]
    head = f"<h2>{_t(w['late'])}</h2>"
    if late is None:
        return head + f"<p class=note>{_t(w['no_deadline'])}</p>"
    if not late:
        return head + f"<p>{_t(w['no_late'])}</p>"
    rows = "".join(f"<tr><td>{_code(sub)}</td><td>{_t(words)}</td></tr>" for sub, words in late)
    return (
        head + f"<table id=late><tr><th>{_t(w['submission'])}</th><th>{_t(w['details'])}</th>"
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
    head = f"<h2>{_t(w['similar'])}</h2><p class=note>{_t(w['similar_note'])}</p>"
    if not pairs:
        return head + f"<p>{_t(w['no_similar'])}</p>"
    ranked = sorted(pairs, key=lambda p: (-float(p[3]), str(p[0]), str(p[1]), str(p[2])))
    rows = "".join(
        f"<tr><td>{_code(ex)}</td><td>{_code(a)}</td><td>{_code(b)}</td>"
        f"<td class=n>{_t(_score(float(score)))}</td></tr>"
        for ex, a, b, score in ranked
    )
    return (
        head + f"<table id=similarity><tr><th>{_t(w['exercise'])}</th>"
        f"<th>{_t(w['submission'])}</th><th>{_t(w['submission'])}</th>"
        f"<th class=n>{_t(w['similarity'])}</th></tr>{rows}</table>"
    )


_FILE_CAUSE = re.compile(r"^(?P<ex>.+): the student's file was (?P<how>changed|added|removed)$")
_SPEC_CAUSE = re.compile(r"^(?P<ex>.+): the exercise spec changed$")


def _because(text: str, lang: str) -> str:
    """A gradebook's reason (grader.outcomes.gradebook, in English) in the course's language;
    versions and seeds ("seed 1 -> 2") read the same in both."""
    w = LABELS[lang]
    if m := _FILE_CAUSE.match(text):
        return w[f"file_{m['how']}"].format(ex=m["ex"])
    if m := _SPEC_CAUSE.match(text):
        return w["spec_changed"].format(ex=m["ex"])
    return text


def _changes(changes: Sequence[Change], lang: str) -> str:
    w, status = LABELS[lang], STATUS[lang]
    head = f"<h2>{_t(w['changes'])}</h2>"
    if not changes:
        return head + f"<p>{_t(w['no_changes'])}</p>"

    def said(s: str | None) -> str:
        return status.get(s, s) if s else w["absent"]

    rows = []
    for c in changes:
        flips = "<br>".join(
            f"{_code(f'{f.exercise}.{f.check}')} {_t(said(f.before))} → {_t(said(f.after))}"
            for f in c.flips
        ) or _t(w["no_flip"])
        why = "<br>".join(_t(_because(x, lang)) for x in c.causes) or _t(w["timing"])
        rows.append(
            f"<tr><td>{_code(c.submission)}</td><td class=n>{c.score_before:g}/{c.max_before:g}"
            f" → {c.score_after:g}/{c.max_after:g}</td><td class=n>{c.previous_run}</td>"
            f"<td>{flips}</td><td>{why}</td></tr>"
        )
    return (
        head + f"<table id=changes><tr><th>{_t(w['submission'])}</th>"
        f"<th class=n>{_t(w['score_change'])}</th><th class=n>{_t(w['since'])}</th>"
        f"<th>{_t(w['flips'])}</th>"
        f"<th>{_t(w['because'])}</th></tr>{''.join(rows)}</table>"
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
    body = [f"<h1>{_t(w['page'])}</h1>"]
    if not stats.submissions:
        body.append(f"<p>{_t(w['none'])}</p>")
    else:
        body.append(
            f"<p class=lead>{stats.submissions} {_t(w['subs'])}; {_t(w['mean'])} "
            f"{stats.mean:.4g}/{stats.max_score:g}, {_t(w['median'])} {stats.median:g}, "
            f"{_t(w['range'])} {min(stats.scores):g}–{max(stats.scores):g}; "
            f"{_t(w['full'])}: {stats.full_marks}</p>"
        )
        if stats.overloaded:
            names = ", ".join(_code(s) for s in stats.overloaded)
            body.append(f"<p class=warn>{_t(w['overloaded'].replace('**', ''))} {names}</p>")
        order = [e.id for e in stats.exercises]
        body.append(frontpage.students(classstats.students(list(results), names), order, lang))
        body.append(f"<h2>{_t(w['dist'])}</h2>{_histogram(stats, lang)}")
        body.append(frontpage.distributions(stats, lang))
        body.append(_exercises(stats, lang))
        body.append(_checks(stats, lang))
        body.append(_causes(count_causes(results, attempt) if causes is None else causes, lang))
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
            body.append(_changes(changes, lang))
    return (
        f'<!DOCTYPE html>\n<html lang="{_t(lang)}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="referrer" content="no-referrer">\n<title>{_t(w["page"])}</title>\n'
        f"<style>{_STYLE}{frontpage.STYLE}</style>\n</head>\n<body>\n<main>\n"
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

"""report.html's numbers of the class: the score histogram (with its table), each exercise's and
each check's pass rate, lowest first. The numbers come from grader.outcomes.classstats (rates
count the submissions that attempted the exercise, as summary.md does); this formats them."""

from __future__ import annotations

import base64

from grader.outcomes.classstats import ClassStats, ExerciseStats
from grader.report.classview.histogram import _bin_label, histogram_png, histogram_svg
from grader.report.classview.words import LABELS, code, t
from grader.report.statuswords import STATUS


def _rate_bar(part: float, whole: float) -> str:
    if not whole:
        return ""
    share = part / whole
    hue = round(120 * share)  # red (nobody) to green (everybody)
    return (
        f'<span class="bar"><span style="width:{100 * share:.0f}%;'
        f'background:hsl({hue},55%,45%)"></span></span>'
    )


def histogram(stats: ClassStats, lang: str) -> str:
    w = LABELS[lang]
    png = histogram_png(stats, LABELS[lang])
    if png is None:
        image = histogram_svg(stats, LABELS[lang])
    else:
        data = base64.b64encode(png).decode("ascii")
        image = (
            f'<img id="histogram" alt="{t(w["hist_alt"])}" width="880" '
            f'src="data:image/png;base64,{data}">'
        )
    rows = "".join(
        f"<tr><td>{t(_bin_label(low, high))}</td><td class=n>{n}</td></tr>"
        for low, high, n in stats.distribution
    )
    return (
        f"<figure>{image}</figure><details><summary>{t(w['table'])}</summary>"
        f"<table><tr><th>{t(w['score'])}</th><th>{t(w['count'])}</th></tr>{rows}"
        "</table></details>"
    )


def _exercise_rate(e: ExerciseStats) -> float:
    return e.statuses["passed"] / e.attempted if e.attempted else 0.0


def exercises(stats: ClassStats, lang: str) -> str:
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
            f"<tr><td>{t(e.title.get(lang))} {code(e.id)}</td>"
            f"<td class=n>{passed}/{e.attempted}</td><td class=n>{rate}</td>"
            f"<td>{_rate_bar(passed, e.attempted)}</td>"
            f"<td class=n>{e.attempted}/{stats.submissions}</td><td class=n>{mean}</td>"
            f"<td>{t(counts or '–')}</td><td>{t(others or '–')}</td></tr>"
        )
    return (
        f"<h2>{t(w['exercises_rank'])}</h2><p class=note>{t(w['note'])}</p>"
        f"<table id=exercises><tr><th>{t(w['exercise'])}</th>"
        f"<th class=n>{t(w['passed'])}</th><th class=n>{t(w['rate'])}</th><th></th>"
        f"<th class=n>{t(w['attempted'])}</th><th class=n>{t(w['mean_att'])}</th>"
        f"<th>{t(w['statuses'])}</th>"
        f"<th>{t(w['not_attempted'])}</th></tr>{''.join(rows)}</table>"
    )


def checks(stats: ClassStats, lang: str) -> str:
    w, status = LABELS[lang], STATUS[lang]
    rows = []
    for c in stats.checks:
        tags = "".join(
            f' <span class="tag">({t(w[tag])})</span>'
            for tag in ("hidden", "bonus")
            if getattr(c, tag)
        )
        rate = f"{100 * c.rate:.0f}%" if c.total else "–"
        others = ", ".join(
            f"{status.get(k, k)} {n}" for k, n in sorted(c.statuses.items()) if k != "passed"
        )
        rows.append(
            f'<tr class="check"><td>{code(f"{c.exercise}.{c.check}")} '
            f"{t(c.title.get(lang))}{tags}</td><td>{code(c.kind)}</td>"
            f"<td class=n>{c.passed}/{c.total}</td><td class=n>{rate}</td>"
            f"<td>{_rate_bar(c.passed, c.total)}</td><td>{t(others or '–')}</td></tr>"
        )
    return (
        f"<h2>{t(w['checks'])}</h2><table id=checks><tr><th>{t(w['check'])}</th>"
        f"<th>{t(w['kind'])}</th><th class=n>{t(w['passed'])}</th>"
        f"<th class=n>{t(w['rate'])}</th><th></th>"
        f"<th>{t(w['statuses'])}</th></tr>{''.join(rows)}</table>"
    )

"""report.html's section on what changed since the previous run (a gradebook's
grader.outcomes.gradebook.changes()): each submission whose score or checks changed, the checks
that flipped, and why, in the course's language."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from grader.report.classview.words import LABELS, code, t
from grader.report.statuswords import STATUS

if TYPE_CHECKING:
    from grader.outcomes.gradebook import Change

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


def section(changes: Sequence[Change], lang: str) -> str:
    w, status = LABELS[lang], STATUS[lang]
    head = f"<h2>{t(w['changes'])}</h2>"
    if not changes:
        return head + f"<p>{t(w['no_changes'])}</p>"

    def said(s: str | None) -> str:
        return status.get(s, s) if s else w["absent"]

    rows = []
    for c in changes:
        flips = "<br>".join(
            f"{code(f'{f.exercise}.{f.check}')} {t(said(f.before))} → {t(said(f.after))}"
            for f in c.flips
        ) or t(w["no_flip"])
        why = "<br>".join(t(_because(x, lang)) for x in c.causes) or t(w["timing"])
        rows.append(
            f"<tr><td>{code(c.submission)}</td><td class=n>{c.score_before:g}/{c.max_before:g}"
            f" → {c.score_after:g}/{c.max_after:g}</td><td class=n>{c.previous_run}</td>"
            f"<td>{flips}</td><td>{why}</td></tr>"
        )
    return (
        head + f"<table id=changes><tr><th>{t(w['submission'])}</th>"
        f"<th class=n>{t(w['score_change'])}</th><th class=n>{t(w['since'])}</th>"
        f"<th>{t(w['flips'])}</th>"
        f"<th>{t(w['because'])}</th></tr>{''.join(rows)}</table>"
    )

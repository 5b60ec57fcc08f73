"""The causes the class hit most often, for report.html and summary.md: counted over the
submissions that attempted the exercise (an untouched starter's NotImplementedError is no mistake
of the class's), each named in words a teacher reads: a mistake the grader named
(CheckResult.mistake, its title), else the cause that blocked the checks as the exception's type
and the student's function ("sgd_step raised ValueError"), with how many students and which
checks. A check that only failed, with neither, is counted in the pass rates, not here.

Texts the worker sent (an exception's type) are cut to a name, and every text is escaped where
it reaches the page or a Markdown table.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from grader.common import safetext
from grader.outcomes.results import SubmissionResult
from grader.specs.model import Text

TOP = 20
"""Causes listed; the rest are counted in one line."""
FAILED = ("failed", "error", "timeout")
"""Check statuses whose cause counts: a check that ran and did not pass."""
MISTAKE = "mistake:"
"""The key of a named mistake: MISTAKE + its id."""

WORDS = {
    "id": {
        "causes": "Penyebab yang paling sering",
        "causes_note": "Atas kiriman yang mengerjakan latihannya, pada pemeriksaan terlihat yang "
        "tidak lulus (gagal, galat atau melebihi waktu): kesalahan yang dinamai grader, atau "
        "galat yang memblokir pemeriksaan (jenis galat dan fungsi siswa); satu penyebab bisa "
        "memblokir beberapa pemeriksaan sekaligus.",
        "exercise": "Latihan",
        "cause": "Penyebab",
        "checks": "Pemeriksaan",
        "n_subs": "Mahasiswa",
        "no_causes": "Tidak ada penyebab bernama.",
        "more_causes": "dan {n} penyebab lain",
        "c_unwritten": "{fn} belum ditulis (NotImplementedError)",
        "c_raised": "{fn} memunculkan {what}",
        "c_forbidden": "{fn} memanggil API terlarang {what}",
        "c_modes": "{fn} mengubah mode global: {what}",
        "c_caller": "{fn} mengubah objek milik pemanggil",
        "c_overloaded": "komputer penilai terlalu sibuk (bukan kesalahan siswa)",
    },
    "en": {
        "causes": "Causes the class hit most often",
        "causes_note": "Over the submissions that attempted the exercise, on the visible checks "
        "that did not pass (failed, error or timed out): a mistake the grader named, or the "
        "error that blocked the checks (its type and the student's function); one cause can "
        "block several checks at once.",
        "exercise": "Exercise",
        "cause": "Cause",
        "checks": "Checks",
        "n_subs": "Students",
        "no_causes": "No named cause.",
        "more_causes": "and {n} more causes",
        "c_unwritten": "{fn} is not written yet (NotImplementedError)",
        "c_raised": "{fn} raised {what}",
        "c_forbidden": "{fn} called the forbidden {what}",
        "c_modes": "{fn} left global modes changed: {what}",
        "c_caller": "{fn} changed the caller's objects",
        "c_overloaded": "the grading machine was overloaded (not the student's doing)",
    },
}


@dataclass(frozen=True)
class Cause:
    """A named mistake or a cause (CheckResult.cause) in one exercise, and how often the class
    hit it."""

    exercise: str
    cause: str
    """MISTAKE + the mistake's id, or the cause's key ("raised:ValueError:f")."""
    checks: int
    """Visible checks that did not pass with it."""
    submissions: int
    """Submissions with at least one of them."""
    title: Text | None = None
    """A named mistake's title (CheckResult.mistake_title)."""
    check_ids: tuple[str, ...] = ()
    """Which checks, in the order the exercise lists them."""


_NAME = re.compile(r"[^\w.]+")


def _cleaned(cause: str) -> str:
    """A cause key with the worker's texts cut to names: "raised:TYPE:FUNCTION" keeps the type's
    name (a hostile or long type name is no text for a teacher's table)."""
    kind, _, rest = cause.partition(":")
    what, _, fn = rest.rpartition(":")
    if kind == "raised" and fn and what:
        what = _NAME.sub("_", what.rsplit(".", 1)[-1])[:60] or "Exception"
        return f"raised:{what}:{fn}"
    return cause


def count(results: Sequence[SubmissionResult], attempt=None) -> list[Cause]:
    """Named mistakes and causes over the visible checks that ran and did not pass (failed,
    error, timeout), most submissions first, then most checks, then by exercise and key. A
    check's named mistake goes before its cause; a hidden check is never counted (batch removes
    what it would say anyway: it names what the worker sent). attempt(submission, exercise)
    (Manifest.attempt): only the submissions that attempted the exercise count, so an untouched
    starter's NotImplementedError is no mistake of the class's."""
    checks: Counter = Counter()
    who: dict[tuple[str, str], set[str]] = defaultdict(set)
    which: dict[tuple[str, str], list[str]] = defaultdict(list)
    titles: dict[tuple[str, str], Text] = {}
    for r in results:
        for e in r.exercises:
            if e.untouched or (attempt is not None and attempt(r.submission, e.id) != "attempted"):
                continue
            for c in e.checks:
                if c.hidden or c.status not in FAILED:
                    continue
                if c.mistake:
                    key = (e.id, MISTAKE + c.mistake)
                    if c.mistake_title is not None:
                        titles.setdefault(key, c.mistake_title)
                elif c.cause:
                    key = (e.id, _cleaned(c.cause))
                else:
                    continue
                checks[key] += 1
                who[key].add(r.submission)
                if c.id not in which[key]:
                    which[key].append(c.id)
    ranked = sorted(checks, key=lambda k: (-len(who[k]), -checks[k], k))
    return [
        Cause(
            ex,
            key,
            checks[(ex, key)],
            len(who[(ex, key)]),
            titles.get((ex, key)),
            tuple(which[(ex, key)]),
        )
        for ex, key in ranked
    ]


def meaning(cause: str, lang: str) -> str:
    """A cause key in words (plain text, not yet escaped): "raised:ValueError:f" is "f raised
    ValueError"; a named mistake without its title is its id; a key of another form is left as
    it is."""
    w = WORDS[lang]
    if cause.startswith(MISTAKE):
        return cause[len(MISTAKE) :].replace("_", " ")
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


def words(c: Cause, lang: str) -> str:
    """The cause as a teacher reads it (plain text): the mistake's title, else meaning()."""
    if c.title is not None:
        return c.title.get(lang)
    return meaning(c.cause, lang)


def _t(text, limit: int = 2000) -> str:
    return safetext.html(text, limit)


def section(causes: Sequence[Cause], lang: str) -> str:
    """report.html's section (h2, note, table)."""
    w = WORDS[lang]
    head = f"<h2>{_t(w['causes'])}</h2><p class=note>{_t(w['causes_note'])}</p>"
    if not causes:
        return head + f"<p>{_t(w['no_causes'])}</p>"
    rows = "".join(
        f"<tr><td><code>{_t(c.exercise, 300)}</code></td><td>{_t(words(c, lang))}</td>"
        f"<td class=n>{c.submissions}</td><td>"
        + (", ".join(f"<code>{_t(i, 300)}</code>" for i in c.check_ids) or str(c.checks))
        + "</td></tr>"
        for c in causes[:TOP]
    )
    more = (
        f"<p class=note>{_t(w['more_causes'].format(n=len(causes) - TOP))}</p>"
        if len(causes) > TOP
        else ""
    )
    return (
        head + f"<table id=causes><tr><th>{_t(w['exercise'])}</th><th>{_t(w['cause'])}</th>"
        f"<th class=n>{_t(w['n_subs'])}</th><th>{_t(w['checks'])}</th>"
        f"</tr>{rows}</table>{more}"
    )


def _cell(text: str) -> str:
    """A Markdown table cell: one line, its pipes and angle brackets escaped."""
    text = " ".join(safetext.clean(text, 300).split())
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


def summary_lines(causes: Sequence[Cause], lang: str) -> list[str]:
    """summary.md's section: a heading and a table of the TOP causes."""
    w = WORDS[lang]
    lines = [f"### {w['causes']}", ""]
    if not causes:
        return lines + [w["no_causes"], ""]
    lines += [
        f"| {w['exercise']} | {w['cause']} | {w['n_subs']} | {w['checks']} |",
        "|---|---|--:|---|",
    ]
    for c in causes[:TOP]:
        ids = ", ".join(f"`{_cell(i)}`" for i in c.check_ids) or str(c.checks)
        lines.append(
            f"| `{_cell(c.exercise)}` | {_cell(words(c, lang))} | {c.submissions} | {ids} |"
        )
    if len(causes) > TOP:
        lines += ["", w["more_causes"].format(n=len(causes) - TOP)]
    return lines + [""]

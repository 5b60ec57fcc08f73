"""Pairs of submissions whose answers to one exercise hold similar code: pairs to look at.

The fingerprints are copydetect's (the `copydetect` package: winnowing, after Schleimer,
Wilkerson and Aiken 2003): each answer is tokenized by Pygments and filtered (every name becomes
`V`, every function name `F`, every string `S`; comments and spaces dropped), so renamed
variables and respaced or recommented code match as they are; its k-grams are hashed, and two
answers share the k-grams of every run of code they have in common, in any order (functions
moved around still match). The starter's lines and the lines the course expects in every answer
(its answer key and correct variants) are copydetect's boilerplate: their k-grams are removed
from each answer before it is compared, and a score is the share of an answer's own (not
discounted) code found in the other.

Two glue steps around copydetect 0.5.0, both on its own data: the boilerplate is removed from
each fingerprint's hash index after the fact (copydetect's intersect1d(..., assume_unique=True)
on a hash list with repeats also drops one occurrence of every repeated k-gram of the answer's
own), and the offsets that map filtered code back to the source are made non-decreasing (for a
class name copydetect stores the name's length instead of the running offset, which can move
the start of a match next to `class Name` far up the file).

A similarity is never a finding: answers are alike because an exercise leaves few ways to write
them, because students studied together or used the same source. The page and the summary say
"look at these", in the course's language.
"""

from __future__ import annotations

import html
import io
import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grader.common import safetext
from grader.report.classview import pairsview, ranking
from grader.report.classview.ranking import CoursePair

NOISE = 25
"""copydetect's noise threshold (its default): the k of the k-grams, in characters of filtered
code. A shorter run in common than this never counts."""
GUARANTEE = 25
"""copydetect's guarantee threshold (its default): every run in common at least this long is
found. Equal to NOISE: winnowing keeps every k-gram (window 1); answers are short."""
DEFAULT_THRESHOLD = 0.45
"""The score (the larger of the two directions) a pair must exceed to be listed. Measured on the
course's own correct answers by benchmarks/similarity_threshold.py: see docs/teachers.md."""
MAX_SOURCE_CHARS = 200_000
"""Characters of an answer fingerprinted and shown; the rest of a larger file is left out."""
MAX_SHOWN_LINES = 2_000
"""Lines of one answer shown on the page."""
MAX_SIDE_BY_SIDE = 25
"""Pairs of one exercise shown side by side on the page, most similar first."""
MAX_LISTED = 200
"""Further pairs of one exercise named in a table (names and scores); the rest are counted."""


@dataclass(frozen=True)
class Pair:
    """Two submissions' answers to one exercise with code in common (a < b)."""

    exercise: str
    a: str
    b: str
    similarity_a: float
    """The share (0..1) of a's own code, the starter's and shared lines discounted, found in b."""
    similarity_b: float
    """The share (0..1) of b's own code found in a."""
    lines_a: tuple[tuple[int, int], ...]
    """The lines of a's source (1-based, first and last inclusive) that match code of b."""
    lines_b: tuple[tuple[int, int], ...]
    """The lines of b's source that match code of a."""
    overlap: int = 0
    """Characters of filtered code (copydetect's tokens) of a found in b."""

    @property
    def score(self) -> float:
        """The pair's score: the larger direction (an answer copied whole into a longer one
        scores as high as the copy itself)."""
        return max(self.similarity_a, self.similarity_b)


def _normal(text: str) -> str:
    """Line ends as `\\n` (the lines that a Pair counts), cut at MAX_SOURCE_CHARS."""
    return text[:MAX_SOURCE_CHARS].replace("\r\n", "\n").replace("\r", "\n")


def _fingerprint(text: str, window: int, boilerplate: frozenset = frozenset()):
    from copydetect import CodeFingerprint
    from copydetect.utils import get_token_coverage

    found = CodeFingerprint(
        "answer.py", NOISE, window, language="python", fp=io.StringIO(_normal(text))
    )
    if len(found.offsets):
        found.offsets[:, 1] = np.maximum.accumulate(found.offsets[:, 1])
    if boilerplate:
        kept = {h: idx for h, idx in found.hash_idx.items() if h not in boilerplate}
        found.hash_idx = kept
        found.hashes = set(kept)
        found.token_coverage = get_token_coverage(kept, NOISE, len(found.filtered_code))
    return found


def _boilerplate(texts: Iterable[str]) -> frozenset:
    """Every k-gram hash of the starter and the shared answers (copydetect fingerprints
    boilerplate with window 1: all of them)."""
    hashes: set = set()
    for text in texts:
        if text:
            hashes |= _fingerprint(text, 1).hashes
    return frozenset(hashes)


def _lines(raw: str, slices) -> tuple[tuple[int, int], ...]:
    """copydetect's matched character slices of `raw` as merged line ranges."""
    ranges: list[tuple[int, int]] = []
    if len(slices) == 0 or np.size(slices) == 0:
        return ()
    for start, end in zip(np.asarray(slices[0]).tolist(), np.asarray(slices[1]).tolist()):
        start, end = max(0, int(start)), min(len(raw), int(end))
        while start < end and raw[start].isspace():
            start += 1
        while end > start and raw[end - 1].isspace():
            end -= 1
        if end <= start:
            continue
        ranges.append((raw.count("\n", 0, start) + 1, raw.count("\n", 0, end - 1) + 1))
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return tuple(merged)


def compute(
    sources: Mapping[str, Mapping[str, str]],
    starters: Mapping[str, str],
    shared: Mapping[str, Sequence[str]] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[Pair]:
    """Every pair of submissions whose answers to one exercise score above `threshold`, most
    similar first.

    sources: {submission id: {exercise id: Python source}} (a notebook's code cells joined);
    starters: {exercise id: the starter's source}; shared: {exercise id: [sources whose lines
    every answer may hold: the answer key, correct variants]}. The starter's and the shared
    lines are discounted. An answer with no code of its own left (the untouched starter, an
    empty file) is in no pair.
    """
    from copydetect import compare_files

    shared = shared or {}
    window = GUARANTEE - NOISE + 1
    answers: dict[str, dict[str, str]] = {}
    for submission, files in sources.items():
        for exercise, text in files.items():
            answers.setdefault(exercise, {})[submission] = text
    pairs: list[Pair] = []
    for exercise in sorted(answers):
        boilerplate = _boilerplate([starters.get(exercise, ""), *shared.get(exercise, [])])
        prints, by_text = {}, {}  # a copy's fingerprint is its original's (a class of copies)
        for submission in sorted(answers[exercise]):
            text = answers[exercise][submission]
            if text not in by_text:
                by_text[text] = _fingerprint(text, window, boilerplate)
            if by_text[text].hashes:
                prints[submission] = by_text[text]
        for a, b in itertools.combinations(prints, 2):
            if prints[a].hashes.isdisjoint(prints[b].hashes):
                continue
            overlap, (sim_a, sim_b), (slices_a, slices_b) = compare_files(prints[a], prints[b])
            sim_a, sim_b = min(1.0, float(sim_a)), min(1.0, float(sim_b))
            if max(sim_a, sim_b) <= threshold:
                continue
            pairs.append(
                Pair(
                    exercise,
                    a,
                    b,
                    sim_a,
                    sim_b,
                    _lines(prints[a].raw_code, slices_a),
                    _lines(prints[b].raw_code, slices_b),
                    int(overlap),
                )
            )
    pairs.sort(key=lambda p: (-p.score, -p.overlap, p.exercise, p.a, p.b))
    return pairs


def rows(pairs: Iterable[Pair]) -> list[tuple[str, str, str, float]]:
    """(exercise, a, b, score) per pair: the form the class report page (page.py) lists."""
    return [(p.exercise, p.a, p.b, p.score) for p in pairs]


LABELS = {
    "id": {
        "title": "Kode yang mirip: pasangan untuk dilihat",
        "md_title": "Kode yang mirip (untuk dilihat)",
        "note": "Setiap pasangan di sini adalah dua kiriman yang jawabannya untuk satu latihan "
        "memuat kode yang mirip, setelah baris starter dan baris yang diharapkan di setiap "
        "jawaban (kunci jawaban dan variannya) tidak dihitung. Kemiripan adalah alasan untuk "
        "melihat kedua jawaban berdampingan, bukan kesimpulan: jawaban bisa mirip karena "
        "latihannya hanya menyisakan sedikit cara menulisnya, karena mahasiswa belajar bersama, "
        "atau karena memakai sumber yang sama. Lihat kodenya, lalu bicarakan dengan mereka.",
        "score_note": "Persentase: bagian kode milik jawaban itu sendiri yang juga ada di jawaban "
        "pasangannya; baris yang ditandai adalah baris yang mirip.",
        "threshold": "Hanya pasangan dengan skor di atas {t} yang ditampilkan.",
        "exercise": "Latihan",
        "pairs": "{n} pasangan untuk dilihat",
        "no_pairs": "Tidak ada pasangan di atas ambang.",
        "contents": "Isi",
        "in_other": "{p} kodenya juga ada di jawaban {other} ({n} baris ditandai)",
        "more_lines": "… {n} baris lagi tidak ditampilkan",
        "listed": "Pasangan berikutnya, tanpa kodenya:",
        "more_pairs": "… dan {n} pasangan lagi.",
        "submission": "Kiriman",
        "score": "Skor",
        "md_none": "Tidak ada pasangan kiriman dengan kode mirip di atas ambang.",
        "md_counts": "Pasangan kiriman dengan kode mirip, per latihan: {counts}. Kemiripan adalah "
        "alasan untuk melihat kedua jawaban berdampingan (`similarity.html`), bukan kesimpulan.",
        "md_top": "Paling mirip:",
    },
    "en": {
        "title": "Similar code: pairs to look at",
        "md_title": "Similar code (to look at)",
        "note": "Each pair here is two submissions whose answers to one exercise hold similar "
        "code, once the starter's lines and the lines expected in every answer (the answer "
        "key and its variants) are left out. A similarity is a reason to look at both answers "
        "side by side, not a finding: answers can be alike because the exercise leaves few "
        "ways to write them, because students studied together, or because they used the same "
        "source. Look at the code, then talk with them.",
        "score_note": "Percentages: the share of an answer's own code that is also in the other "
        "answer; the marked lines are the similar ones.",
        "threshold": "Only pairs scoring above {t} are shown.",
        "exercise": "Exercise",
        "pairs": "{n} pairs to look at",
        "no_pairs": "No pair above the threshold.",
        "contents": "Contents",
        "in_other": "{p} of its code is also in {other}'s answer ({n} lines marked)",
        "more_lines": "… {n} more lines not shown",
        "listed": "The next pairs, without their code:",
        "more_pairs": "… and {n} more pairs.",
        "submission": "Submission",
        "score": "Score",
        "md_none": "No pair of submissions with similar code above the threshold.",
        "md_counts": "Pairs of submissions with similar code, per exercise: {counts}. A "
        "similarity is a reason to look at both answers side by side (`similarity.html`), not "
        "a finding.",
        "md_top": "Most similar:",
    },
}
TOP = 5
"""Pairs summary_lines() names."""

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1500px;
  padding: 0 1em; color: #1b1b1b; }
h1 { font-size: 1.5em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin-bottom: .3em; }
.note { background: #f3f6fa; border-left: 4px solid #6a8caf; padding: .6em .9em; }
.name { font-family: ui-monospace, monospace; background: #f2f2f2; padding: 0 .25em;
  white-space: pre-wrap; word-break: break-all; }
.sides { display: flex; gap: 1em; align-items: flex-start; }
.side { flex: 1 1 0; min-width: 0; overflow-x: auto; border: 1px solid #ddd; }
.side p { margin: .3em .5em; font-size: .9em; }
table.code { border-collapse: collapse; width: 100%; font-family: ui-monospace, monospace;
  font-size: 12.5px; }
table.code td { padding: 0 .5em; vertical-align: top; white-space: pre; }
table.code td.n { color: #888; text-align: right; user-select: none; width: 1%; }
tr.hit td { background: #fff1b8; } tr.hit td.n { color: #6b5500; font-weight: bold; }
.more { color: #777; font-style: italic; }
.n { text-align: right; } .note code { background: #e8edf3; }
table.list { border-collapse: collapse; } table.list td, table.list th { padding: .1em .6em;
  border-bottom: 1px solid #eee; text-align: left; }
"""


def _name(text: str) -> str:
    """A submission's name as HTML text: one line, control characters as escapes, escaped."""
    return html.escape(safetext.name(text), quote=True)


def _anchor(exercise: str) -> str:
    return "ex-" + re.sub(r"[^A-Za-z0-9_-]", "_", exercise)


def _percent(x: float) -> str:
    return f"{100 * x:.0f}%"


def _side(name: str, own: float, other: str, text: str, lines, w) -> list[str]:
    marked = {n for first, last in lines for n in range(first, last + 1)}
    rows = safetext.clean(_normal(text), limit=MAX_SOURCE_CHARS).split("\n")
    head = w["in_other"].format(
        p=_percent(own), other=f'<span class="name">{_name(other)}</span>', n=len(marked)
    )
    out = [
        '<div class="side">',
        f'<p><span class="name">{_name(name)}</span>: {head}</p>',
        '<table class="code">',
    ]
    for number, row in enumerate(rows[:MAX_SHOWN_LINES], 1):
        hit = ' class="hit"' if number in marked else ""
        out.append(f'<tr{hit}><td class="n">{number}</td><td>{html.escape(row)}</td></tr>')
    out.append("</table>")
    if len(rows) > MAX_SHOWN_LINES:
        more = w["more_lines"].format(n=len(rows) - MAX_SHOWN_LINES)
        out.append(f'<p class="more">{html.escape(more)}</p>')
    out.append("</div>")
    return out


def page(
    pairs: Sequence[Pair],
    sources: Mapping[str, Mapping[str, str]],
    lang: str,
    threshold: float | None = None,
    course: Sequence[CoursePair] | None = None,
) -> str:
    """The HTML page write_html() writes; `course` (ranking.rank()) leads it where given."""
    w = LABELS[lang]
    exercises = sorted(
        {p.exercise for p in pairs} | {e for files in sources.values() for e in files}
    )
    by_exercise: dict[str, list[Pair]] = {e: [] for e in exercises}
    for p in pairs:
        by_exercise[p.exercise].append(p)
    out = [
        "<!DOCTYPE html>",
        f'<html lang="{html.escape(lang, quote=True)}">',
        "<head>",
        '<meta charset="utf-8">',
        # Nothing is fetched and nothing runs: styles are inline, scripts and requests refused.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(w['title'])}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{html.escape(w['title'])}</h1>",
        f'<p class="note">{html.escape(w["note"])}</p>',
        f"<p>{html.escape(w['score_note'])}"
        + (f" {html.escape(w['threshold'].format(t=_percent(threshold)))}" if threshold else "")
        + "</p>",
    ]
    if course is not None:
        out.append(
            pairsview.section(course, lang, ranking.DEFAULT_THRESHOLD, lambda e: "#" + _anchor(e))
        )
    out += [f"<h2>{html.escape(w['contents'])}</h2>", "<ul>"]
    for e in exercises:
        count = w["pairs"].format(n=len(by_exercise[e])) if by_exercise[e] else w["no_pairs"]
        out.append(
            f'<li><a href="#{_anchor(e)}"><code>{html.escape(e)}</code></a>: '
            f"{html.escape(count)}</li>"
        )
    out.append("</ul>")
    for e in exercises:
        found = by_exercise[e]
        out += [
            f'<section id="{_anchor(e)}">',
            f"<h2>{html.escape(w['exercise'])} <code>{html.escape(e)}</code></h2>",
            f"<p>{html.escape(w['pairs'].format(n=len(found)) if found else w['no_pairs'])}</p>",
        ]
        for rank, p in enumerate(found[:MAX_SIDE_BY_SIDE], 1):
            out += [
                '<div class="pair">',
                f'<h3>{rank}. <span class="name">{_name(p.a)}</span> ↔ '
                f'<span class="name">{_name(p.b)}</span>: {_percent(p.score)}</h3>',
                '<div class="sides">',
                *_side(p.a, p.similarity_a, p.b, sources[p.a][e], p.lines_a, w),
                *_side(p.b, p.similarity_b, p.a, sources[p.b][e], p.lines_b, w),
                "</div>",
                "</div>",
            ]
        listed = found[MAX_SIDE_BY_SIDE : MAX_SIDE_BY_SIDE + MAX_LISTED]
        if listed:
            out += [
                f"<p>{html.escape(w['listed'])}</p>",
                '<table class="list">',
                f"<tr><th>#</th><th>{html.escape(w['submission'])}</th>"
                f"<th>{html.escape(w['submission'])}</th><th>{html.escape(w['score'])}</th></tr>",
            ]
            for rank, p in enumerate(listed, MAX_SIDE_BY_SIDE + 1):
                out.append(
                    f'<tr><td>{rank}</td><td class="name">{_name(p.a)}</td>'
                    f'<td class="name">{_name(p.b)}</td><td>{_percent(p.score)}</td></tr>'
                )
            out.append("</table>")
        rest = len(found) - MAX_SIDE_BY_SIDE - MAX_LISTED
        if rest > 0:
            out.append(f'<p class="more">{html.escape(w["more_pairs"].format(n=rest))}</p>')
        out.append("</section>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def write_html(
    path: Path,
    pairs: Sequence[Pair],
    sources: Mapping[str, Mapping[str, str]],
    lang: str,
    threshold: float | None = None,
    course: Sequence[CoursePair] | None = None,
) -> None:
    """OUT/similarity.html: one static page (inline CSS, no script, nothing fetched), a heading
    per exercise and each of its pairs side by side with the similar lines marked. `sources` as
    given to compute(); `threshold`, when given, is named on the page; `course`: the pairs ranked
    across the course (ranking.rank()), shown first."""
    safetext.atomic_write(Path(path), page(pairs, sources, lang, threshold, course))


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&])")


def _md(text: str) -> str:
    """A name as Markdown text: one line, control characters as escapes, punctuation escaped
    (no link, no HTML, no code span can start in it)."""
    return _MD_SPECIAL.sub(r"\\\1", safetext.name(text))


def summary_lines(pairs: Sequence[Pair], lang: str, top: int = TOP) -> list[str]:
    """A few Markdown lines for summary.md: how many pairs per exercise, and the `top` most
    similar pairs with their score."""
    w = LABELS[lang]
    lines = [f"### {w['md_title']}", ""]
    if not pairs:
        return lines + [w["md_none"], ""]
    counts: dict[str, int] = {}
    for p in pairs:
        counts[p.exercise] = counts.get(p.exercise, 0) + 1
    listed = ", ".join(f"`{e}` {n}" for e, n in sorted(counts.items()))
    lines += [w["md_counts"].format(counts=listed), "", w["md_top"], ""]
    for p in pairs[:top]:
        lines.append(f"- `{p.exercise}`: {_md(p.a)} ↔ {_md(p.b)}, {_percent(p.score)}")
    return lines + [""]

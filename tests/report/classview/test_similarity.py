"""Similar code between submissions (grader.report.classview.similarity, on copydetect): a
disguised copy comes first, the course's own correct answers stay below the default threshold,
the starter and shared lines are discounted, and the page and summary escape names and say
"look at these"."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from grader.report.classview import similarity
from grader.submissions import notebook

ROOT = Path(__file__).resolve().parents[3]
SOLUTIONS = ROOT / "solutions"
EXERCISE = "higher_order"
ORIGINAL = "grad_outputs_ones"

# solutions/variants/higher_order/grad_outputs_ones.py, as a student who got it from a friend
# hands it in: the starter's docstrings kept, every variable renamed, the functions swapped,
# comments added and the spacing changed.
COPY = '''"""Turunan kedua dan Hessian-vector product / Second derivatives and a Hessian-vector product."""

import torch


def hvp(inp, vec):
    """ID: H·v untuk g(x) = (Σ sin x)·(Σ x²), tanpa membentuk H.
    EN: H·v for g(x) = (Σ sin x)·(Σ x²), without building H.
    """
    # a fresh leaf so the caller's tensor is left alone
    leaf = inp.detach().clone().requires_grad_(True)
    val = torch.sin(leaf).sum() * (leaf**2).sum()
    first = torch.autograd.grad(val, leaf, create_graph=True)[0]   # keep the graph
    return torch.autograd.grad(torch.dot(first, vec), leaf)[0]


def second_derivative(t):
    """ID: f''(x) elemen-per-elemen untuk f(x) = x³·sin(x).
    EN: f''(x) elementwise for f(x) = x³·sin(x).
    """
    leaf = t.detach().clone().requires_grad_(True)
    out = leaf**3 * torch.sin(leaf)
    # first derivative, with its graph
    d1, = torch.autograd.grad(out, leaf, grad_outputs=torch.ones_like(out), create_graph=True)
    d2, = torch.autograd.grad(d1, leaf, grad_outputs=torch.ones_like(d1))
    return d2
'''

CAREFUL = re.compile(r"cheat|plagiar|copied|copier|curang|nyontek|contek|jiplak|plagiat", re.I)
"""Words the page and the summary never use: a similarity is not a finding."""


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def course(exercise: str = EXERCISE) -> tuple[dict[str, str], dict[str, list[str]]]:
    starter = read(ROOT / "exercises" / exercise / f"{exercise}.py")
    return {exercise: starter}, {exercise: [read(SOLUTIONS / f"{exercise}.py")]}


def klass() -> dict[str, dict[str, str]]:
    """The copy and its original, the exercise's other variant, and every mutant (each a wrong
    answer of its own)."""
    sources = {
        f"variant-{p.stem}": {EXERCISE: read(p)}
        for p in sorted((SOLUTIONS / "variants" / EXERCISE).glob("*.py"))
    }
    sources.update(
        {
            f"mutant-{p.stem}": {EXERCISE: read(p)}
            for p in sorted((SOLUTIONS / "mutants" / EXERCISE).glob("*.py"))
        }
    )
    sources["friend"] = {EXERCISE: COPY}
    assert f"variant-{ORIGINAL}" in sources and len(sources) >= 10
    return sources


def test_the_renamed_reordered_copy_comes_first():
    starters, shared = course()
    pairs = similarity.compute(klass(), starters, shared)
    assert pairs, "the copy was not found"
    top = pairs[0]
    assert {top.a, top.b} == {"friend", f"variant-{ORIGINAL}"}
    assert top.exercise == EXERCISE
    assert top.score > similarity.DEFAULT_THRESHOLD
    assert 0 <= min(top.similarity_a, top.similarity_b) <= top.score <= 1
    # the marked lines are the copy's code, not its docstrings: both functions' bodies
    copy_lines = top.lines_a if top.a == "friend" else top.lines_b
    marked = {n for first, last in copy_lines for n in range(first, last + 1)}
    body = [i for i, line in enumerate(COPY.splitlines(), 1) if "torch.autograd.grad" in line]
    assert set(body) <= marked
    assert 1 not in marked
    # most similar first, and nothing at or below the threshold
    assert [p.score for p in pairs] == sorted((p.score for p in pairs), reverse=True)
    assert all(p.score > similarity.DEFAULT_THRESHOLD for p in pairs)
    assert all(p.a < p.b for p in pairs)


def test_the_course_answers_stay_below_the_threshold_and_copies_above(monkeypatch):
    """benchmarks/similarity_threshold.py's measurement: every pair of the course's correct
    answers of one exercise (starter as boilerplate, answer key shared) scores below the default
    threshold; every variant against its disguised copy scores above it."""
    path = ROOT / "benchmarks" / "similarity_threshold.py"
    spec = importlib.util.spec_from_file_location("similarity_threshold", path)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # its dataclass looks itself up there
    spec.loader.exec_module(bench)
    rows = bench.measure()
    assert len(rows) >= 16
    honest = max(rows, key=lambda r: r.honest)
    copy = min(rows, key=lambda r: r.copy)
    assert honest.honest < similarity.DEFAULT_THRESHOLD < copy.copy, (honest, copy)


def test_the_starter_and_shared_lines_are_discounted():
    starters, shared = course()
    key = shared[EXERCISE][0]
    starter = starters[EXERCISE]
    two_keys = {"a": {EXERCISE: key}, "b": {EXERCISE: key}}
    # the same answer twice: the key alike, unless it is shared
    [alike] = similarity.compute(two_keys, starters)
    assert alike.score == pytest.approx(1.0)
    assert similarity.compute(two_keys, starters, shared, threshold=0.0) == []
    # the untouched starter and an empty file have no code of their own: in no pair
    untouched = {"a": {EXERCISE: starter}, "b": {EXERCISE: starter}, "c": {EXERCISE: ""}}
    assert similarity.compute(untouched, starters, threshold=-1.0) == []
    # without the starter as boilerplate, two untouched starters are alike
    assert similarity.compute(untouched, {}, threshold=0.5)


def test_pairs_are_per_exercise_and_the_threshold_filters():
    starters, shared = course()
    sources = {
        "a": {EXERCISE: COPY, "other": "x = 1\n"},
        "b": {EXERCISE: read(SOLUTIONS / "variants" / EXERCISE / f"{ORIGINAL}.py")},
        "c": {"other": "x = 1\n"},
    }
    pairs = similarity.compute(sources, starters, shared)
    assert [(p.exercise, p.a, p.b) for p in pairs] == [(EXERCISE, "a", "b")]
    assert similarity.compute(sources, starters, shared, threshold=pairs[0].score) == []
    assert similarity.rows(pairs) == [(EXERCISE, "a", "b", pairs[0].score)]


def test_a_notebook_is_compared_by_its_code_cells(tmp_path):
    cells = [COPY.split("\n\n\n")[0], *COPY.split("\n\n\n")[1:]]
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Higher order"},
            *(
                {
                    "cell_type": "code",
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                    "source": text,
                }
                for text in cells
            ),
        ],
    }
    path = tmp_path / f"{EXERCISE}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    source = notebook.load(path)[0]
    starters, shared = course()
    original = read(SOLUTIONS / "variants" / EXERCISE / f"{ORIGINAL}.py")
    pairs = similarity.compute(
        {"nb": {EXERCISE: source}, "py": {EXERCISE: original}}, starters, shared
    )
    assert [(p.a, p.b) for p in pairs] == [("nb", "py")]
    lines = source.splitlines()
    marked = [lines[n - 1] for first, last in pairs[0].lines_a for n in range(first, last + 1)]
    assert any("torch.dot" in line for line in marked)


def test_offsets_into_the_source_never_go_back():
    """copydetect records a class name's length instead of the running offset; the glue makes
    the offsets non-decreasing so that a match next to `class Name` maps to its own lines."""
    source = read(SOLUTIONS / "custom_sigmoid.py")
    found = similarity._fingerprint(source, 1)
    assert (np.diff(found.offsets[:, 1]) >= 0).all()


HOSTILE = "<script>alert(1)</script>"
IMG = "<img src=https://example.org/x.png>"


def hostile_pairs():
    starters, shared = course()
    original = read(SOLUTIONS / "variants" / EXERCISE / f"{ORIGINAL}.py")
    sources = {
        HOSTILE: {EXERCISE: COPY + "# </td></tr></table><script>x()</script>\n"},
        'line\nbreak "quoted" &amp; \x1b[31m': {EXERCISE: original},
        IMG: {EXERCISE: original},
    }
    pairs = similarity.compute(sources, starters, shared)
    assert len(pairs) == 3
    return pairs, sources


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, as a browser's parser reads them."""

    def __init__(self, page: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


@pytest.mark.parametrize("lang", ["id", "en"])
def test_the_page_escapes_names_and_loads_nothing(tmp_path, lang):
    pairs, sources = hostile_pairs()
    out = tmp_path / "similarity.html"
    similarity.write_html(out, pairs, sources, lang)
    page = out.read_text(encoding="utf-8")
    tags = Tags(page).tags
    names = {tag for tag, _ in tags}
    assert not names & {"script", "img", "link", "iframe", "object", "embed", "base", "form"}
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=https://example.org/x.png&gt;" in page
    assert "&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;x()" in page
    assert "line\\nbreak &quot;quoted&quot; &amp;amp; \\x1b[31m" in page and "\x1b" not in page
    # nothing from outside: every src/href is a fragment of the page itself
    links = [a[k] for _, a in tags for k in ("src", "href") if k in a]
    assert links and all(link.startswith("#") for link in links)
    assert not re.search(
        r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""",
        page.replace("&lt;img src=https://", ""),
        re.I,
    )
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # a heading per exercise, each pair side by side, its lines marked
    assert f"<code>{EXERCISE}</code></h2>" in page
    assert page.count('<div class="side">') == 6 and 'class="hit"' in page
    assert f'<html lang="{lang}">' in page
    assert ("dilihat" if lang == "id" else "look at") in page
    assert not CAREFUL.search(page)


def test_the_page_lists_many_pairs_without_their_code():
    a = similarity.Pair("ex", "a", "b", 0.9, 0.8, ((1, 2),), ((1, 2),), 50)
    many = [a] * (similarity.MAX_SIDE_BY_SIDE + similarity.MAX_LISTED + 7)
    page = similarity.page(many, {"a": {"ex": "x\ny\n"}, "b": {"ex": "x\ny\n"}}, "en", 0.45)
    assert page.count('<div class="pair">') == similarity.MAX_SIDE_BY_SIDE
    assert "and 7 more pairs" in page and "scoring above 45%" in page


@pytest.mark.parametrize("lang", ["id", "en"])
def test_summary_lines_count_pairs_and_name_the_top_ones(lang):
    pairs, _ = hostile_pairs()
    more = [
        similarity.Pair("other", f"s{i}", f"t{i}", 0.5 + i / 100, 0.5, ((1, 1),), ((1, 1),), 30)
        for i in range(8)
    ]
    ranked = sorted(pairs + more, key=lambda p: -p.score)
    counts = {EXERCISE: 3, "other": 8}
    lines = similarity.summary_lines(ranked, lang)
    text = "\n".join(lines)
    assert lines[0].startswith("### ")
    assert all(f"`{e}` {n}" in text for e, n in counts.items())
    items = [line for line in lines if line.startswith("- ")]
    assert len(items) == similarity.TOP
    assert items[0].endswith(f", {ranked[0].score * 100:.0f}%")
    assert "similarity.html" in text
    # names stay text: no HTML, no line break, no code span opened by a name
    assert "<script>" not in text and "\\<script\\>" in text
    assert all("\n" not in line and "\x1b" not in line for line in lines)
    assert not CAREFUL.search(text)
    none = similarity.summary_lines([], lang)
    assert none[0].startswith("### ") and len([x for x in none if x]) == 2

"""Pairs ranked across the course (grader.report.classview.ranking): renaming, reordering and
reformatting change nothing, the course's code and what the whole class writes count for no
pair, and the overlap is summed over the exercises."""

from __future__ import annotations

import ast

from grader.report.classview import pairsview, ranking

STARTER = "import torch\n\n\ndef f(x):\n    raise NotImplementedError\n"
KEY = "import torch\n\n\ndef f(x):\n    return torch.exp(x) * 2\n"
OWN = '''import torch


def helper(values, scale):
    """Her own helper."""
    shifted = values - values.mean(dim=0, keepdim=True)
    spread = shifted.pow(2).mean(dim=0).sqrt() + 1e-6
    return scale * shifted / spread


def f(x):
    total = torch.zeros_like(x)
    for step in range(3):
        total = total + helper(x, step + 1).clamp(min=-2.0, max=2.0)
    return torch.tanh(total).sum(dim=-1)
'''


def disguise(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in ("torch", "range", "helper"):
            node.id = "q_" + node.id
        if isinstance(node, ast.arg):
            node.arg = "q_" + node.arg
    tree.body = tree.body[:1] + tree.body[1:][::-1]
    return ast.unparse(tree) + "\n"


def _class(exercises=("e1", "e2")):
    sources = {
        "hana": {e: OWN.replace("3", str(i + 3)) for i, e in enumerate(exercises)},
        "ana": dict.fromkeys(exercises, KEY),
        "fajar": dict.fromkeys(exercises, STARTER),
    }
    sources["eko"] = {e: disguise(t) for e, t in sources["hana"].items()}
    return sources, dict.fromkeys(exercises, STARTER), {e: [KEY] for e in exercises}


def test_a_disguised_copy_is_the_one_pair_summed_over_the_exercises():
    sources, starters, shared = _class()
    pairs = ranking.rank(sources, starters, shared)
    assert [(p.a, p.b) for p in pairs] == [("eko", "hana")]
    pair = pairs[0]
    assert sorted(s.exercise for s in pair.detail) == ["e1", "e2"]
    assert pair.overlap == sum(s.overlap for s in pair.detail) > ranking.MIN_OVERLAP
    assert pair.share == 1.0


def test_the_key_and_the_starter_reformatted_are_still_the_courses():
    sources, starters, shared = _class(("e1",))
    sources["budi"] = {"e1": disguise(KEY)}
    sources["citra"] = {"e1": disguise(STARTER) + "\n\n# mine\n"}
    every = ranking.rank(sources, starters, shared, threshold=-1, min_overlap=0)
    assert [(p.a, p.b) for p in every] == [("eko", "hana")]


def test_what_most_of_the_class_writes_is_nobodys():
    sources = {f"s{i}": {"e": OWN} for i in range(6)}
    assert ranking.rank(sources, {"e": STARTER}, {"e": [KEY]}, threshold=-1, min_overlap=0) == []


def test_a_small_overlap_is_not_listed_and_a_broken_file_is_compared_as_text():
    sources = {"a": {"e": OWN}, "b": {"e": "def (x):\n" + OWN}, "c": {"e": KEY + "\ny = 1\n"}}
    pairs = ranking.rank(sources, {"e": STARTER}, {"e": []}, threshold=-1, min_overlap=0)
    assert ("a", "b") in {(p.a, p.b) for p in pairs}
    assert ranking.rank({"a": {"e": KEY + "z = 1\n"}, "b": {"e": KEY + "z = 1\n"}}, {}, {}) == []


def test_the_summary_and_the_section_name_every_exercise_escaped():
    sources, starters, shared = _class()
    sources["<b>x</b>"] = sources.pop("eko")
    pairs = ranking.rank(sources, starters, shared)
    lines = pairsview.summary_lines(pairs, "en", ranking.DEFAULT_THRESHOLD)
    item = next(line for line in lines if line.startswith("- "))
    assert "`e1`" in item and "`e2`" in item and "\\<b\\>" in item
    html = pairsview.section(pairs, "id", ranking.DEFAULT_THRESHOLD, lambda e: f"#ex-{e}")
    assert "&lt;b&gt;x&lt;/b&gt;" in html and 'href="#ex-e1"' in html and "<b>" not in html
    assert pairsview.summary_lines([], "en", 0.5)[2] == pairsview.WORDS["en"]["none"]

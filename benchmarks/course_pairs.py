"""Pairs ranked across the course (grader.report.classview.ranking) on a built class: is the
disguised copy first, and is every honest pair below the line?

    python benchmarks/course_pairs.py [--honest N] [--seed S]

The class, over every exercise of the course:

- `vera` answers with an answer set of her own, written apart from the key: each exercise's
  first correct variant (solutions/variants/<id>/), the key where there is none. Here the
  variants are hers, not the course's: only the key is discounted as the course's answer.
- `eko` hands in vera's answers disguised: every local name renamed, functions in reverse order,
  docstrings and comments gone, reformatted (ast.unparse).
- N honest students (default 12) answer close to the key, each their own way: locals renamed,
  operands of + and * swapped, `x ** 2` written `x * x`, a returned expression first named,
  comments added, functions reordered, each drawn at random per student.

It prints the ranking's top pairs (overlap in k-grams, share, exercises), where the copy stands,
the highest honest pair against the listing line, and the per-exercise copydetect report
(similarity.py) on the same class for comparison: in how many exercises the copy is that
exercise's first pair, and how many honest pairs it lists. Exit 1 where the copy is not first or
an honest pair is listed.
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.report.classview import ranking, similarity  # noqa: E402

SOLUTIONS = ROOT / "solutions"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _api(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _renamer(tree: ast.Module, prefix: str) -> dict[str, str]:
    api = _api(tree)
    bound = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return {old: f"{prefix}{i}" for i, old in enumerate(sorted(bound - api - {"self"}))}


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node


def disguise(source: str) -> str:
    """Locals renamed, top-level definitions in reverse order (imports first), docstrings and
    comments gone, reformatted."""
    tree = ast.parse(source)
    tree = _Rename(_renamer(tree, "nilai_")).visit(tree)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant):
                node.body = body[1:] or [ast.Pass()]
    head = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    rest = [n for n in tree.body if n not in head]
    tree.body = head + rest[::-1]
    return ast.unparse(tree) + "\n"


class _Honest(ast.NodeTransformer):
    """A student's own small departures from the key, drawn per node."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Mult)) and self.rng.random() < 0.4:
            node.left, node.right = node.right, node.left
        if (
            isinstance(node.op, ast.Pow)
            and isinstance(node.right, ast.Constant)
            and node.right.value == 2
            and isinstance(node.left, ast.Name)
            and self.rng.random() < 0.6
        ):
            return ast.BinOp(node.left, ast.Mult(), ast.Name(node.left.id, ast.Load()))
        return node

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        last = node.body[-1]
        if (
            isinstance(last, ast.Return)
            and last.value is not None
            and not isinstance(last.value, ast.Name)
            and self.rng.random() < 0.5
        ):
            name = self.rng.choice(["hasil", "out", "result", "jawaban"])
            node.body[-1:] = [
                ast.Assign([ast.Name(name, ast.Store())], last.value, lineno=0),
                ast.Return(ast.Name(name, ast.Load())),
            ]
        return node


def honest(source: str, rng: random.Random) -> str:
    tree = ast.parse(source)
    tree = _Honest(rng).visit(tree)
    tree = _Rename(_renamer(tree, rng.choice(["v", "tmp", "a", "nilai", "z"]))).visit(tree)
    head = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    rest = [n for n in tree.body if n not in head]
    if rng.random() < 0.5:
        rng.shuffle(rest)
    tree.body = head + rest
    text = ast.fix_missing_locations(tree)
    lines = ast.unparse(text).splitlines()
    if rng.random() < 0.5:  # comments of their own
        lines = [
            f"{ln}  # langkah {i}" if ln.strip().startswith("return") else ln
            for i, ln in enumerate(lines)
        ]
    return "\n".join(lines) + "\n"


def build(n_honest: int, seed: int):
    order = read(ROOT / "exercises" / "ORDER").split()
    rng = random.Random(seed)
    starters, keys, sources = {}, {}, {}
    vera = {}
    for e in order:
        starters[e] = read(ROOT / "exercises" / e / f"{e}.py")
        keys[e] = [read(SOLUTIONS / f"{e}.py")]
        variants = sorted((SOLUTIONS / "variants" / e).glob("*.py"))
        vera[e] = read(variants[0]) if variants else keys[e][0]
    sources["vera"] = vera
    sources["eko"] = {e: disguise(t) for e, t in vera.items()}
    for i in range(n_honest):
        sources[f"honest{i:02d}"] = {e: honest(keys[e][0], rng) for e in order}
    return sources, starters, keys


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--honest", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sources, starters, keys = build(args.honest, args.seed)
    every = ranking.rank(sources, starters, keys, threshold=-1, min_overlap=0)
    listed = ranking.rank(sources, starters, keys)
    copy = ("eko", "vera")
    print(
        f"{len(sources)} submissions x {len(starters)} exercises; k={ranking.K}, "
        f"listed above share {ranking.DEFAULT_THRESHOLD} with overlap >= {ranking.MIN_OVERLAP}"
    )
    print(f"{'#':>3} {'pair':<24}{'overlap':>8}{'share':>7}  exercises")
    for n, p in enumerate(every[:8], 1):
        mark = " (listed)" if p in listed else ""
        print(
            f"{n:>3} {p.a + ' / ' + p.b:<24}{p.overlap:>8}{p.share:>7.2f}  {len(p.detail)}{mark}"
        )
    honest_pairs = [p for p in every if (p.a, p.b) != copy]
    top_honest = max(honest_pairs, key=lambda p: (p.overlap, p.share), default=None)
    the_copy = next((p for p in every if (p.a, p.b) == copy), None)
    if the_copy:
        print(
            f"copy eko/vera: overlap {the_copy.overlap}, share {the_copy.share:.2f}, in "
            f"{len(the_copy.detail)} of {len(starters)} exercises"
        )
    if top_honest:
        best_share = (
            max(p.share for p in honest_pairs if p.overlap >= ranking.MIN_OVERLAP)
            if any(p.overlap >= ranking.MIN_OVERLAP for p in honest_pairs)
            else 0.0
        )
        print(
            f"highest honest pair {top_honest.a}/{top_honest.b}: overlap {top_honest.overlap}, "
            f"share {top_honest.share:.2f}; highest honest share with overlap >= "
            f"{ranking.MIN_OVERLAP}: {best_share:.2f}"
        )
    # copydetect's per-exercise report on the same class, for comparison
    per = similarity.compute(sources, starters, keys)
    firsts = sum(
        1
        for e in starters
        if (mine := [p for p in per if p.exercise == e]) and (mine[0].a, mine[0].b) == copy
    )
    honest_listed = [p for p in per if (p.a, p.b) != copy]
    print(
        f"per-exercise copydetect (threshold {similarity.DEFAULT_THRESHOLD}): the copy first in "
        f"{firsts} of {len(starters)} exercises, {len(honest_listed)} honest pair(s) listed "
        f"(highest {max((p.score for p in honest_listed), default=0):.2f})"
    )
    ok = bool(listed) and (listed[0].a, listed[0].b) == copy and len(listed) == 1
    print("copy first, no honest pair listed: " + ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

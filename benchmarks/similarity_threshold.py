"""Where the similarity report's default threshold sits: the course's own correct answers
against a disguised copy.

    python benchmarks/similarity_threshold.py

For every exercise, the correct answers are the answer key (solutions/<id>.py) and each
correct variant (solutions/variants/<id>/*.py), each written on its own. Every pair of two
distinct ones is scored by grader.report.classview.similarity.compute() as a class would be:
the starter (exercises/<id>/<id>.py) as boilerplate and the answer key as shared. (A pair with
the key scores 0 by construction, its every line being shared; the pairs that measure something
are those of two variants.) That is the highest similarity two honest answers reach because the
exercise leaves them little else to write. The highest pair among the mutants and variants is
printed too, for information: the mutants are edits of the key (some of an older key), so two of
them share their departures from it, copies of one source in all but name.

Against them, copies: every variant copied with every local name renamed, its functions in
reverse order and its formatting redone (ast.unparse, no comments), scored against its original
in the same setting; the lowest of these per exercise is printed. The default threshold must lie
above every pair of correct answers and below every copy; the script exits 1 where it does not.
"""

from __future__ import annotations

import ast
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.report.classview import similarity  # noqa: E402

SOLUTIONS = ROOT / "solutions"


def disguise(source: str) -> str:
    """The source with every name it binds (locals, parameters, loop variables) renamed and its
    top-level functions and classes in reverse order; the functions keep their names (the grader
    calls them by name) and the imports stay first."""
    tree = ast.parse(source)
    api = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    bound = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    } | {a.arg for n in ast.walk(tree) if isinstance(n, ast.arg) for a in [n]}
    renames = {old: f"renamed_{i}" for i, old in enumerate(sorted(bound - api - {"self"}))}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            node.id = renames.get(node.id, node.id)
            return node

        def visit_arg(self, node):
            node.arg = renames.get(node.arg, node.arg)
            return node

    tree = Rename().visit(tree)
    head = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    rest = [n for n in tree.body if n not in head]
    tree.body = head + rest[::-1]
    return ast.unparse(tree) + "\n"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@dataclass
class Row:
    exercise: str
    answers: int
    honest: float
    """The highest score of two distinct correct answers (key and variants)."""
    honest_pair: tuple[str, str]
    wrong: float
    """The highest score of two of the variants and mutants."""
    copy: float
    """The lowest score of a variant against its disguised copy."""
    copy_of: str


def scores(e: str, starter: str, key: str, sources: dict[str, str]) -> dict[tuple, float]:
    """The score of every pair of `sources` (answers to exercise `e`) as a class's would be:
    the starter as boilerplate, the answer key as shared; 0 for a pair with nothing in common."""
    found = similarity.compute(
        {name: {e: text} for name, text in sources.items()}, {e: starter}, {e: [key]}, -1
    )
    out = {tuple(sorted(pair)): 0.0 for pair in itertools.combinations(sources, 2)}
    out.update({(p.a, p.b): p.score for p in found})
    return out


def measure() -> list[Row]:
    rows = []
    for e in sorted(p.name for p in (SOLUTIONS / "variants").iterdir() if p.is_dir()):
        starter = read(ROOT / "exercises" / e / f"{e}.py")
        key = read(SOLUTIONS / f"{e}.py")
        variants = {p.stem: read(p) for p in sorted((SOLUTIONS / "variants" / e).glob("*.py"))}
        mutants = {p.stem: read(p) for p in sorted((SOLUTIONS / "mutants" / e).glob("*.py"))}
        answers = {"key": key, **variants}

        honest = scores(e, starter, key, answers)
        worst = max(sorted(honest), key=honest.__getitem__)
        wrong = scores(
            e, starter, key, {**variants, **{f"mutant:{k}": v for k, v in mutants.items()}}
        )
        copies = {
            name: scores(e, starter, key, {name: text, "copy": disguise(text)})[
                tuple(sorted((name, "copy")))
            ]
            for name, text in variants.items()
        }
        weakest = min(sorted(copies), key=copies.__getitem__)
        rows.append(
            Row(
                e,
                len(answers),
                honest[worst],
                worst,
                max(wrong.values(), default=0.0),
                copies[weakest],
                weakest,
            )
        )
    return rows


def main() -> int:
    threshold = similarity.DEFAULT_THRESHOLD
    window = similarity.GUARANTEE - similarity.NOISE + 1
    print(f"copydetect k={similarity.NOISE}, window={window}; default threshold {threshold}")
    print(
        f"{'exercise':<22}{'answers':>8}{'honest max':>11}  {'(pair)':<42}"
        f"{'wrong max':>10}{'copy min':>9}  (copy of)"
    )
    rows = measure()
    for r in rows:
        print(
            f"{r.exercise:<22}{r.answers:>8}{r.honest:>11.3f}  {' / '.join(r.honest_pair):<42}"
            f"{r.wrong:>10.3f}{r.copy:>9.3f}  {r.copy_of}"
        )
    low, high = max(r.honest for r in rows), min(r.copy for r in rows)
    print(
        f"\nhighest pair of correct answers {low:.3f}; lowest disguised copy {high:.3f}; "
        f"default threshold {threshold}; highest pair of wrong answers (mutants, variants) "
        f"{max(r.wrong for r in rows):.3f}"
    )
    ok = low < threshold < high
    print("threshold between them: " + ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

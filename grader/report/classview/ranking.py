"""Pairs of submissions ranked across the course: how much code two students have in common
over all the exercises, the starter's and the course's own code discounted.

Every answer is normalised before it is compared, so that renaming, reordering and reformatting
change nothing: it is parsed (ast), its docstrings dropped and written out again (ast.unparse,
which fixes spacing, parentheses, quotes and comments), cut into units (each function, each
method, the rest of the module) so that functions in another order still match, and tokenized
with every name read as `V` (an attribute keeps its name: `torch.exp` is not `torch.sin`), every
string as `S`. Its k-grams of tokens are hashed. The starter and the course's answers (the key,
its variants) go through the same steps and their k-grams are removed from every answer, as are
the k-grams that more than COMMON of the class's answers to that exercise hold (what the
exercise leaves one way to write: MOSS's "-m"). What is left is an answer's own code.

A pair's overlap in one exercise is the number of own k-grams the two answers share; its
overlap across the course is their sum, the ranking's order. A pair is listed when that sum is at
least MIN_OVERLAP and the share (the overlap over the smaller of the two answers' own code, summed
over the exercises where both have some) exceeds the threshold. benchmarks/course_pairs.py
measures both on a class with a disguised copy and honest students close to the key.

Like similarity.py, this says which pairs to look at; a similarity is never a finding.
"""

from __future__ import annotations

import ast
import io
import itertools
import keyword
import math
import tokenize
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

K = 10
"""Tokens per k-gram: a run in common shorter than this never counts (about one line)."""
COMMON = 0.25
"""A k-gram in more than this share of the answers to one exercise (and in more than two) is
the exercise's, not a pair's."""
DEFAULT_THRESHOLD = 0.5
"""The share of their own code a listed pair must have in common; see benchmarks/course_pairs.py."""
MIN_OVERLAP = 30
"""The k-grams in common, over the course, a listed pair must reach (a few lines of own code)."""
MAX_CHARS = 200_000
"""Characters of an answer normalised; the rest of a larger file is left out."""


@dataclass(frozen=True)
class Shared:
    """What a pair has in common in one exercise."""

    exercise: str
    overlap: int
    """Own k-grams of the two answers found in both."""
    own_a: int
    """a's own k-grams (its code less the starter's, the course's and the class's common)."""
    own_b: int

    @property
    def share(self) -> float:
        """The overlap over the smaller answer's own code."""
        least = min(self.own_a, self.own_b)
        return self.overlap / least if least else 0.0


@dataclass(frozen=True)
class CoursePair:
    """Two submissions (a < b) and their code in common over the course."""

    a: str
    b: str
    detail: tuple[Shared, ...]
    """Per exercise with an overlap, most overlap first."""
    compared: int
    """The smaller answer's own k-grams, summed over the exercises where both have own code."""

    @property
    def overlap(self) -> int:
        return sum(s.overlap for s in self.detail)

    @property
    def share(self) -> float:
        return self.overlap / self.compared if self.compared else 0.0


class _NoDocstrings(ast.NodeTransformer):
    def generic_visit(self, node):
        super().generic_visit(node)
        body = getattr(node, "body", None)
        if isinstance(body, list):
            kept = [
                s
                for s in body
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            ]
            node.body = kept or [ast.Pass()]
        return node


def _units(source: str) -> list[str]:
    """The answer as normalised units of code: each function and method alone, the rest of the
    module (and of each class) together; the source as it is where it does not parse."""
    text = source[:MAX_CHARS]
    try:
        tree = _NoDocstrings().visit(ast.parse(text))
    except (SyntaxError, ValueError, RecursionError):
        return [text]
    units: list[str] = []
    rest: list[ast.stmt] = []

    def take(body: list[ast.stmt], into: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                units.append(_unparse(node))
            elif isinstance(node, ast.ClassDef):
                own: list[ast.stmt] = []
                take(node.body, own)
                node.body = own or [ast.Pass()]
                units.append(_unparse(node))
            else:
                into.append(node)

    take(tree.body, rest)
    if rest:
        units.append(_unparse(ast.Module(body=rest, type_ignores=[])))
    return units


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return ""


def tokens(unit: str) -> list[str]:
    """A unit's tokens, names as `V` (attributes and keywords kept), strings as `S`, comments
    and line breaks inside brackets dropped, blocks as `{` `}`."""
    out: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(unit).readline):
            if tok.type == tokenize.NAME:
                keep = keyword.iskeyword(tok.string) or (out and out[-1] == ".")
                out.append(tok.string if keep else "V")
            elif tok.type == tokenize.STRING:
                out.append("S")
            elif tok.type in (tokenize.NUMBER, tokenize.OP):
                out.append(tok.string)
            elif tok.type == tokenize.NEWLINE:
                out.append(";")
            elif tok.type == tokenize.INDENT:
                out.append("{")
            elif tok.type == tokenize.DEDENT:
                out.append("}")
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def kgrams(source: str, k: int = K) -> set[int]:
    """The hashed k-grams of the answer's normalised units (none spans two units)."""
    found: set[int] = set()
    for unit in _units(source):
        toks = tokens(unit)
        for i in range(len(toks) - k + 1):
            found.add(zlib.crc32("\x00".join(toks[i : i + k]).encode()))
    return found


def own_code(
    answers: Mapping[str, str], boilerplate: Iterable[str], k: int = K
) -> dict[str, set[int]]:
    """Each answer's own k-grams: less those of the boilerplate (starter, the course's answers)
    and those more than COMMON of the answers (and more than two) hold."""
    removed: set[int] = set()
    for text in boilerplate:
        if text:
            removed |= kgrams(text, k)
    by_text = {text: kgrams(text, k) - removed for text in set(answers.values())}  # copies
    grams = {who: by_text[text] for who, text in answers.items()}  # read, never changed
    seen = Counter(g for found in grams.values() for g in found)
    most = max(2, math.floor(COMMON * len(grams)))
    common = {g for g, n in seen.items() if n > most}
    return {who: found - common for who, found in grams.items()}


def rank(
    sources: Mapping[str, Mapping[str, str]],
    starters: Mapping[str, str],
    shared: Mapping[str, Sequence[str]] | None = None,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_overlap: int = MIN_OVERLAP,
    k: int = K,
) -> list[CoursePair]:
    """The pairs to look at, most overlap across the course first.

    sources: {submission: {exercise: source}}; starters: {exercise: the starter}; shared:
    {exercise: [the course's answers]} (as similarity.compute() takes them). threshold < 0 and
    min_overlap 0 list every pair with some code in common (benchmarks)."""
    shared = shared or {}
    answers: dict[str, dict[str, str]] = {}
    for submission, files in sources.items():
        for exercise, text in files.items():
            answers.setdefault(exercise, {})[submission] = text
    own = {
        e: own_code(answers[e], [starters.get(e, ""), *shared.get(e, [])], k)
        for e in sorted(answers)
    }
    detail: dict[tuple[str, str], list[Shared]] = {}
    compared: Counter = Counter()
    for e, grams in own.items():
        people = sorted(who for who, found in grams.items() if found)
        for a, b in itertools.combinations(people, 2):
            compared[(a, b)] += min(len(grams[a]), len(grams[b]))
            common = len(grams[a] & grams[b])
            if common:
                detail.setdefault((a, b), []).append(
                    Shared(e, common, len(grams[a]), len(grams[b]))
                )
    pairs = [
        CoursePair(
            a, b, tuple(sorted(found, key=lambda s: (-s.overlap, s.exercise))), compared[(a, b)]
        )
        for (a, b), found in detail.items()
    ]
    listed = [p for p in pairs if p.overlap >= min_overlap and p.share > threshold]
    listed.sort(key=lambda p: (-p.overlap, -p.share, p.a, p.b))
    return listed

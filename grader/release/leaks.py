"""Does a folder give an answer away? Lines of solutions/ and of reference code found in the
files of a release.

Reference code is what computes an answer in the teacher's grader: the telling lines of the
specs' scenario `reference:` functions and of each plugin's teacher.py (compared as lines, like the keys'),
and the specs' reference expressions (found anywhere inside a line, spaces aside, unless the
teacher hands the expression out on purpose: in a starter, the instructions or a hint).

A line of an answer key, a variant or a mutant counts when it says something: it is code (not a
comment, a blank line or part of a docstring), at least MIN_CHARS characters without spaces,
and not an import, a `def`/`class` header or a decorator. Lines the teacher hands out on purpose
do not count: those of the starters and of the grader's own source (`with torch.enable_grad():`
is in both the grader and a key). A file of the release leaks when one of its lines, stripped
of surrounding whitespace, equals such a line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

MIN_CHARS = 12
"""`return grad` (10) and `(g,) = grads` say nothing; `return y * (1 - y)` (14) may."""
_STRUCTURE = ("import ", "from ", "def ", "async def ", "class ", "@")


@dataclass(frozen=True)
class Leak:
    file: Path
    line: int
    text: str
    source: Path
    """The solutions/ file the line comes from."""


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def telling_lines(path: Path) -> list[str]:
    """The lines of a Python file that say something (see the module's docstring)."""
    return telling_source(Path(path).read_text(encoding="utf-8", errors="replace"))


def telling_source(text: str) -> list[str]:
    """telling_lines of Python source given as text."""
    try:
        skip = _docstring_lines(ast.parse(text))
    except SyntaxError:  # a broken mutant still holds lines worth hiding
        skip = set()
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if (
            n in skip
            or not s
            or s.startswith("#")
            or s.startswith(_STRUCTURE)
            or len("".join(s.split())) < MIN_CHARS
        ):
            continue
        out.append(s)
    return out


def stripped_lines(paths) -> set[str]:
    return {
        line.strip()
        for p in paths
        for line in Path(p).read_text(encoding="utf-8", errors="replace").splitlines()
    }


def answers(solutions: Path, given: set[str]) -> dict[str, Path]:
    """Every telling line of solutions/**/*.py that is not in `given`, with its file."""
    out: dict[str, Path] = {}
    for path in sorted(Path(solutions).rglob("*.py")):
        for line in telling_lines(path):
            if line not in given:
                out.setdefault(line, path)
    return out


def _lines(folder: Path):
    """(path, line number, line) of every file under folder, read as text."""
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        for n, line in enumerate(text.splitlines(), start=1):
            yield path, n, line


def scan(folder: Path, answer_lines: dict[str, Path]) -> list[Leak]:
    """Every line of every file under folder that is an answer line."""
    return [
        Leak(path, n, line.strip(), answer_lines[line.strip()])
        for path, n, line in _lines(folder)
        if line.strip() in answer_lines
    ]


def reference_code(exercises, teachers: list[Path], given: set[str]) -> dict[str, Path]:
    """Every telling line of the exercises' scenario references and of the teacher's modules
    (each plugin's teacher.py) that is not in `given`, with where it comes from."""
    out: dict[str, Path] = {}
    for e in exercises:
        for check in e.checks:
            source = check.options.get("reference")
            if isinstance(source, str):
                for line in telling_source(source):
                    if line not in given:
                        out.setdefault(line, e.path)
    for path in sorted(teachers):
        for line in telling_lines(path):
            if line not in given:
                out.setdefault(line, path)
    return out


def _compact(text: str) -> str:
    return "".join(text.split())


def reference_expressions(exercises, given_text: str) -> dict[str, Path]:
    """The exercises' reference expressions, spaces removed, that say something (MIN_CHARS)
    and that the teacher does not hand out on purpose (given_text)."""
    given = _compact(given_text)
    out: dict[str, Path] = {}
    for e in exercises:
        for ref in e.references.values():
            expr = _compact(ref.expr)
            if len(expr) >= MIN_CHARS and expr not in given:
                out.setdefault(expr, e.path)
    return out


def scan_expressions(folder: Path, expressions: dict[str, Path]) -> list[Leak]:
    """Every line of every file under folder that holds one of the expressions."""
    found = []
    for path, n, line in _lines(folder) if expressions else ():
        compact = _compact(line)
        source = next((src for expr, src in expressions.items() if expr in compact), None)
        if source is not None:
            found.append(Leak(path, n, line.strip(), source))
    return found

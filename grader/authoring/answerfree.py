"""Answer-free feedback: finding the answer key's expressions in what a report tells a student.

At the default feedback level (grader.loader.config.Feedback) a failed check's message names what
is wrong and where, never the code that fixes it. This module holds the test of that: the answer
key's sub-expressions (solutions/<id>.py, parsed) of some size, written as a message would write
them, are looked for in the texts a report shows. An expression the exercise already hands out
(its instructions or its starter) is no answer and is not looked for. `validate` runs it on every
mutant's report, and tests/course/test_answer_free.py on the course's.

The comparison is textual, after normalising both sides: whitespace dropped, `torch.`, `F.` and
the like dropped, `·` and `×` read as `*`, `²` as `**2`, `ᵀ` as `.T`. A message that spells the
answer out in words or in other names is not found: the test catches code and formulas copied
from the key, which is how a recipe usually reaches a message.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

MIN_OPERATIONS = 2
"""An expression is looked for when it holds at least this many operations (an operator, a
call, a comparison, an index): `y * (1 - y)`, `x - x.max(...)`, never a lone `x.sum()`."""
MIN_CHARS = 7
"""... and its normalised text is at least this long."""

_PREFIXES = re.compile(
    r"\b(?:torch\.nn\.functional|nn\.functional|torch\.linalg|torch\.special|torch|F|math|np)\."
)
_SYMBOLS = {
    "·": "*",
    "×": "*",
    "∗": "*",
    "−": "-",
    "²": "**2",
    "³": "**3",
    "ᵀ": ".T",
    "`": "",
}
_WORD = re.compile(r"[A-Za-z0-9_.]")
_OPERATIONS = (ast.BinOp, ast.UnaryOp, ast.Call, ast.Compare, ast.Subscript, ast.BoolOp, ast.IfExp)


def normal(text: str) -> str:
    """Text or code as this module compares it (see the module's docstring)."""
    for a, b in _SYMBOLS.items():
        text = text.replace(a, b)
    text = _PREFIXES.sub("", text)
    text = re.sub(r"\.(?=\s|$)", ";", text)  # a sentence's full stop is no attribute's dot
    text = re.sub(r"\s*\n\s*", ";", text)  # nor is a line's end part of an expression
    text = re.sub(r"(?<=\w)\s+(?=\w)", " ", text)  # words stay apart
    return re.sub(r"(?<!\w)\s+|\s+(?!\w)", "", text)


def elided(text: str) -> str:
    """Normalised text with every call's arguments written `(...)`: `x - x.max(...)` in a
    message is the key's `x - x.max(dim=-1, keepdim=True)`."""
    out, depth = [], 0
    for i, ch in enumerate(text):
        if depth:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    out.append("...)")
            continue
        out.append(ch)
        if ch == "(" and i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
            depth = 1
    if depth:  # an unclosed call: as written
        return text
    return "".join(out)


def _operations(node: ast.AST) -> int:
    """Operations in an expression; a sign on a constant (`dim=-1`) is part of the number."""
    return sum(
        isinstance(n, _OPERATIONS)
        and not (isinstance(n, ast.UnaryOp) and isinstance(n.operand, ast.Constant))
        for n in ast.walk(node)
    )


@dataclass(frozen=True)
class KeyExpression:
    source: str
    """As the answer key writes it (ast.unparse)."""
    forms: tuple[str, ...]
    """Its normalised text, and with the calls' arguments elided where that is still long."""


def expressions(code: str) -> list[KeyExpression]:
    """The sub-expressions of `code` that are large enough to be an answer (MIN_OPERATIONS,
    MIN_CHARS), each once; docstrings and other string constants are not expressions."""
    out: dict[str, KeyExpression] = {}
    tree = ast.parse(code)
    printed = {  # what the key prints (f-strings) is a message, not a formula
        id(n) for s in ast.walk(tree) if isinstance(s, ast.JoinedStr) for n in ast.walk(s)
    }
    for node in ast.walk(tree):
        if not isinstance(node, _OPERATIONS) or _operations(node) < MIN_OPERATIONS:
            continue
        if id(node) in printed or any(isinstance(n, ast.JoinedStr) for n in ast.walk(node)):
            continue
        source = ast.unparse(node)
        full = normal(source)
        if len(full) < MIN_CHARS or full in out:
            continue
        forms = [full]
        short = elided(full)
        if short != full and len(short) >= MIN_CHARS and _ops_in(short) >= MIN_OPERATIONS:
            forms.append(short)
        out[full] = KeyExpression(source, tuple(forms))
    return list(out.values())


def _ops_in(text: str) -> int:
    """Operations in an elided form, counted on its text (it no longer parses as code)."""
    return len(re.findall(r"[-+*/@%<>]=?|\(\.\.\.\)|\[", text.replace("**", "*")))


def contains(text: str, form: str) -> bool:
    """`form` occurs in normalised `text` as a whole expression (not inside a longer name)."""
    start = text.find(form)
    while start >= 0:
        end = start + len(form)
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if not (before and _WORD.match(before)) and not (
            after and (_WORD.match(after) or after == "(")
        ):
            return True
        start = text.find(form, start + 1)
    return False


def found(text: str, keys: list[KeyExpression]) -> list[str]:
    """The key expressions (as the key writes them) that `text` contains."""
    flat = normal(text)
    short = elided(flat)
    return [
        k.source for k in keys if any(contains(flat, f) or contains(short, f) for f in k.forms)
    ]


def answer_key(exercise, solutions: Path) -> list[KeyExpression]:
    """The answer key's expressions for `exercise` (solutions/<file>), less those the exercise
    hands out itself (its instructions and its starter say them already). Empty without a key."""
    key = Path(solutions) / exercise.file
    try:
        keys = expressions(key.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return []
    given = [normal(exercise.instructions.id), normal(exercise.instructions.en)]
    starter = exercise.path.parent / exercise.file
    try:
        given.append(normal(starter.read_text(encoding="utf-8")))
    except OSError:
        pass
    return [k for k in keys if not any(contains(g, f) for g in given for f in k.forms)]


@dataclass(frozen=True)
class Leak:
    where: str
    """The check's id (or `exercise`) and which text: `grad_g_value: message (en)`."""
    expression: str
    text: str


def shown_texts(result) -> list[tuple[str, str]]:
    """(where, text) for every text of an ExerciseResult the grader wrote for the student to
    read at its feedback level: the exercise's message and each check's message and shown hint,
    in both languages. Tracebacks, printed output and counterexamples are the student's own code
    and inputs, not the grader's words."""
    out = []
    for lang in ("id", "en"):
        if result.message is not None:
            out.append((f"exercise: message ({lang})", result.message.get(lang)))
        for c in result.checks:
            if c.message is not None:
                out.append((f"{c.id}: message ({lang})", c.message.get(lang)))
            if c.hint is not None:
                out.append((f"{c.id}: hint ({lang})", c.hint.get(lang)))
    return out


def leaks(result, keys: list[KeyExpression], own: str = "") -> list[Leak]:
    """Every answer-key expression a result's shown texts contain. own: the source graded;
    an expression it holds is the student's own code quoted (`line 14: ...`), not an answer."""
    if own:
        mine = normal(own)
        keys = [k for k in keys if not any(contains(mine, f) for f in k.forms)]
    return [
        Leak(where, expr, text)
        for where, text in shown_texts(result)
        for expr in found(text, keys)
    ]

"""Which file of a submission is an exercise's answer: one rule for `check`, `batch`, the
Gradescope autograder and `grader.check()` in a notebook.

A student may answer in the `.py` file (`exercises/<id>/<id>.py` in a release) or in a notebook
(`<id>.ipynb`: `notebooks/<id>.ipynb` in a release, or one downloaded from Colab anywhere in the
submission). Every such file is a candidate; a release's clone holds both starters, side by side.

- A file whose code is the starter's as released is not an answer: code compared as Python reads
  it, so docstrings, comments, blank lines and a notebook's grader cells (the set-up cell, the
  `grader.check(...)` cell) do not count, and neither does a cell split differently.
- Exactly one answer: it is graded. The starters beside it are ignored, and the result says so.
- A `.py` answer and a notebook answer (both changed): the `.py` is graded, the notebook is
  ignored, and the result says so (the `.py` is what `python -m grader` and the students' CI grade,
  so the score a student sees is the teacher's).
- Two answers of one kind (two changed `.py` files, or no `.py` and two changed notebooks): an error
  for that exercise ("keep only one"), as for any submission with two files of one name.
- No answer at all: the `.py` starter is graded (it scores 0, "not implemented yet").
"""

from __future__ import annotations

import ast
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

from grader.submissions import files as submission
from grader.submissions import notebook

STARTER = "starter"
"""Why a file is ignored: its code is the starter's as released."""
BOTH = "both"
"""Why a file is ignored: a notebook changed beside a changed .py, which is graded."""
MAX_COMPARED = 256 * 2**10
"""A file larger than this (code only) is never a starter, and is not parsed to tell."""


@dataclass(frozen=True)
class Answer:
    """What choose() found for one exercise in one submission."""

    path: Path | None
    """The file graded; None where there is none (missing) or two answers of one kind."""
    ignored: tuple[tuple[Path, str], ...] = ()
    """The other candidates, each with why it is not graded (STARTER or BOTH)."""
    clash: tuple[Path, ...] = ()
    """Two or more answers of one kind: nothing is graded, the student must keep one."""
    untouched: bool = False
    """No file is an answer: `path` is a starter as released (the exercise is not started)."""

    @property
    def found(self) -> bool:
        return self.path is not None or bool(self.clash)


def candidates(directory: Path, filename: str) -> tuple[list[Path], list[Path]]:
    """(the .py files, the notebooks) named for the exercise, found as submission.find finds
    them (a release copy's exercises/ first for the .py; regular files only)."""
    return (
        submission.find(directory, filename),
        submission.find(directory, Path(filename).stem + notebook.SUFFIX),
    )


def choose(directory: Path, exercise) -> Answer:
    """The answer to grade for `exercise` in the submission `directory`, by the module's rule."""
    py, nb = candidates(Path(directory), exercise.file)
    if not py and not nb:
        return Answer(None)
    starter = starter_code(exercise)
    changed_py = [p for p in py if not _is_starter(p, starter)]
    changed_nb = [p for p in nb if not _is_starter(p, starter)]
    if len(changed_py) > 1:
        return Answer(None, clash=tuple(changed_py))
    if not changed_py and len(changed_nb) > 1:
        return Answer(None, clash=tuple(changed_nb))
    graded = (changed_py or changed_nb or py or nb)[0]
    ignored = tuple((p, BOTH if p in changed_nb else STARTER) for p in py + nb if p != graded)
    return Answer(graded, ignored, untouched=not (changed_py or changed_nb))


def code_digest(source: str) -> str | None:
    """A digest of what a file's code does (a .py file's, or a notebook's as notebook.to_source
    gives it, which leaves out the cells that call the grader): its syntax tree without
    docstrings (any bare string statement), comments or layout. None where it cannot be
    parsed."""
    if len(source) > MAX_COMPARED:
        return None
    raw = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    if raw not in _DIGESTS:  # a class's copies and untouched starters: parsed once
        if len(_DIGESTS) >= 4096:
            _DIGESTS.clear()
        _DIGESTS[raw] = _tree_digest(source)
    return _DIGESTS[raw]


_DIGESTS: dict[str, str | None] = {}


def _tree_digest(source: str) -> str | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            node.body = [s for s in body if not _bare_string(s)] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:32]


def starter_code(exercise) -> str | None:
    """The digest of the exercise's starter as released: recorded in a release's spec (where
    exercises/<id>/<id>.py is the student's own file), else read from the starter beside the
    teacher's spec."""
    recorded = getattr(exercise, "starter_digest", "")
    if recorded:
        return recorded
    path = Path(exercise.path).parent / exercise.file
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return None
    return _file_digest(str(path), stamp)


@functools.lru_cache(maxsize=256)
def _file_digest(path: str, _stamp: int) -> str | None:
    """The code digest of a file, remembered while it is unchanged (a class has many
    submissions, one starter each)."""
    try:
        source, _ = notebook.load(Path(path))
    except (OSError, ValueError, submission.SourceError):  # NotebookError is a ValueError
        return None
    return code_digest(source)


def _is_starter(path: Path, starter: str | None) -> bool:
    if starter is None:
        return False
    try:
        source, _ = notebook.load(path)
    except (OSError, ValueError, submission.SourceError):
        return False  # a file that cannot be read is graded, and its error reported
    return code_digest(source) == starter


def _bare_string(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )

"""Jupyter and Colab notebooks: an exercise's answer may be `<id>.ipynb` instead of `<id>.py`.

Its code cells are graded as one Python file, in order; shell (`!pip ...`) and magic (`%time`)
lines become `pass` (keeping their indentation and the line numbers), and a cell magic (`%%...`)
skips its whole cell. Notebook starters (notebooks/<id>.ipynb) are made from the .py starters:
`python -m grader.submissions.notebook` writes them.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import sys
from pathlib import Path

from grader.submissions import files as submission

SUFFIX = ".ipynb"


class NotebookError(ValueError):
    """A notebook that cannot be read (its message says what to do)."""


def locate(directory: Path, filename: str) -> list[Path]:
    """The exercise's file (`<id>.py`) or notebook (`<id>.ipynb`), flat or nested, found as
    submission.find finds a file (a release copy's exercises/ first, regular files only)."""
    return submission.find(directory, filename) + submission.find(
        directory, Path(filename).stem + SUFFIX
    )


MAX_NOTEBOOK_BYTES = 16 * 2**20
"""The largest notebook read (outputs and pictures make them larger than a .py file)."""


def read(path: Path) -> bytes:
    """The bytes of an exercise's file (.py or notebook), read with the cap its kind has: a
    larger file (a sparse 8 GiB one) raises submission.UnsafeFile before anything is read."""
    path = Path(path)
    limit = MAX_NOTEBOOK_BYTES if path.suffix == SUFFIX else submission.MAX_SOURCE_BYTES
    return submission.read_capped(path, limit)


def load(path: Path) -> tuple[str, bytes]:
    """The Python source of an exercise's file, and the bytes the worker imports: a .py file
    as Python decodes it (its bytes unchanged), or a notebook's code cells (as UTF-8)."""
    path = Path(path)
    if path.suffix != SUFFIX:
        raw = read(path)
        return submission.decode_source(raw), raw
    source = to_source(read(path), path.name)
    return source, source.encode("utf-8")


def _cell_text(cell: dict) -> str:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    if isinstance(src, str):
        return src
    raise NotebookError("a cell's source is neither text nor a list of lines")


def _code(text: str) -> str:
    lines = text.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):  # a cell magic: not Python
        return "\n".join("# " + line for line in lines)
    out = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("!", "%")):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}pass  # {stripped}")
        else:
            out.append(line)
    return "\n".join(out)


MAX_DEPTH = 64
"""The deepest nesting of lists and objects read in a notebook (Jupyter writes about 8)."""
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")


def nesting(raw: bytes) -> int:
    """How deep a JSON text's lists and objects nest (strings skipped), found without parsing
    it, so that no parser's recursion meets a file nested deeper than MAX_DEPTH (16 MiB of
    brackets take about a second)."""
    steps = _STRINGS.sub(b"", raw).translate(_STEPS, _NOT_BRACKETS)  # an open 2, a close 0
    return max(itertools.accumulate(map(int.__sub__, steps, itertools.repeat(1))), default=0)


def to_source(raw: bytes, name: str = "notebook.ipynb") -> str:
    """The code cells of a notebook (nbformat 4) as one Python source, in order."""
    again = "save it again from Jupyter or Colab (File > Download > .ipynb)"
    if nesting(raw) > MAX_DEPTH:
        raise NotebookError(
            f"{name} nests lists or objects more than {MAX_DEPTH} levels deep, which no "
            f"notebook does; {again}"
        )
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise NotebookError(f"{name} is not a notebook (not JSON: {exc}); {again}") from None
    except (RecursionError, MemoryError):
        raise NotebookError(f"{name} is too large or too deeply nested to read; {again}") from None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise NotebookError(
            f"{name} has no list of cells; save it again from Jupyter or "
            f"Colab (File > Download > .ipynb)"
        )
    parts = []
    for i, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        try:
            parts.append(f"# In[{i}]\n" + _code(_cell_text(cell)))
        except NotebookError as exc:
            raise NotebookError(f"{name}, cell {i}: {exc}") from None
    return "\n\n".join(parts) + "\n"


# --- starters ------------------------------------------------------------------------------


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text)}


def _codecell(text: str) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": _lines(text),
    }


def _lines(text: str) -> list[str]:
    lines = text.strip("\n").split("\n")
    return [line + "\n" for line in lines[:-1]] + lines[-1:]


def starter(py_source: str, exercise_id: str) -> dict:
    """A notebook with the .py starter's text: its docstring as markdown, then a code cell per
    top-level block (imports, each function or class), then how to grade it."""
    tree = ast.parse(py_source)
    lines = py_source.splitlines()
    body = list(tree.body)
    cells = []
    doc = ast.get_docstring(tree, clean=True)
    if doc and body and isinstance(body[0], ast.Expr):
        cells.append(_markdown(doc))
        body = body[1:]
    starts = [
        min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]) - 1 for n in body
    ]
    # Comments just above a block belong to it.
    for k, s in enumerate(starts):
        while s > 0 and lines[s - 1].lstrip().startswith("#"):
            s -= 1
        starts[k] = s
    groups: list[list[int]] = []
    for k, node in enumerate(body):
        simple = isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign))
        if groups and simple and groups[-1][1]:
            groups[-1][2] = k
        else:
            groups.append([k, simple, k])
    for first, _, last in groups:
        end = starts[last + 1] if last + 1 < len(starts) else len(lines)
        text = "\n".join(lines[starts[first] : end]).strip("\n")
        if text:
            cells.append(_codecell(text))
    cells.append(
        _markdown(
            "**Menilai / grading.** Simpan notebook ini sebagai "
            f"`{exercise_id}.ipynb` di folder kerjamu, lalu jalankan sel di bawah. / Save this "
            f"notebook as `{exercise_id}.ipynb` in your working folder, then run the cell below. "
            "(Colab: see docs/students.md, section *Notebooks and Colab*.)"
        )
    )
    cells.append(_codecell(f"!python -m grader check {exercise_id} --submission ."))
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dumps(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def write_starters(exercises_dir: Path, out: Path) -> list[Path]:
    """notebooks/<id>.ipynb for every exercises/<id>/<id>.py starter."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for py in sorted(Path(exercises_dir).glob("*/*.py")):
        if py.stem != py.parent.name:
            continue
        target = out / f"{py.stem}{SUFFIX}"
        target.write_text(
            dumps(starter(py.read_text(encoding="utf-8"), py.stem)), encoding="utf-8"
        )
        written.append(target)
    return written


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    for path in write_starters(root / "exercises", root / "notebooks"):
        print(path.relative_to(root))
    sys.exit(0)

"""Jupyter and Colab notebooks: an exercise's answer may be `<id>.ipynb` instead of `<id>.py`.

Its code cells are graded as one Python file, in order, each as IPython runs it (IPython's own
input transformer: `%time r = f()` runs `r = f()`, a `%%time` cell runs its body, `!pip ...` is
skipped with a note; see grader.sandbox.magics), a cell's lines kept as the source's lines, so
that tracebacks and messages name the notebook's cell and line. Notebooks are read with nbformat.
Notebook starters (notebooks/<id>.ipynb) are made from the .py starters:
`python -m grader.submissions.notebook` writes them.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
import sys
import warnings
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


def _cell_text(cell) -> str:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        return "".join(src)
    if isinstance(src, str):
        return src
    raise NotebookError("a cell's source is neither text nor a list of lines")


_transformer = None


def _code(text: str) -> str:
    """A cell as IPython runs it: IPython's own input transformer turns magics and shell
    escapes into calls of get_ipython() (`%time r = f()` is
    `get_ipython().run_line_magic('time', 'r = f()')`), which a worker answers
    (grader.sandbox.magics: code a magic times runs, a shell escape is skipped with a note).
    The result has the cell's own number of lines, so that a line of the cell is a line of
    the source (a cell magic's call is padded with blank lines)."""
    global _transformer
    if _transformer is None:
        from IPython.core.inputtransformer2 import TransformerManager

        _transformer = TransformerManager()
    try:
        out = _transformer.transform_cell(text)
    except (SyntaxError, ValueError, IndexError):  # what Python itself will then report
        out = text
    want = len(text.splitlines())
    lines = out.splitlines()
    if len(lines) < want:
        lines += [""] * (want - len(lines))
    return "\n".join(lines)


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


GRADER_CELL = re.compile(r"^\s*(import grader\b|grader\.\w+\()", re.M)
"""A notebook's own cells that call the grader (the set-up cell, the grading cell): part of every
notebook of the course, never of an answer, so never graded."""

AGAIN = "save it again from Jupyter or Colab (File > Download > .ipynb)"
HEADER = re.compile(r"^# In\[(\d+)\](?: \[(\d+)\])?$")
"""The line that starts each code cell in the source made of a notebook (as nbconvert writes):
`# In[N]`, N the cell's place among all the notebook's cells, then ` [K]` where the cell ran as
the kernel's K-th input (what Jupyter and Colab show beside it)."""


def to_source(raw: bytes, name: str = "notebook.ipynb") -> str:
    """The code cells of a notebook as one Python source, in order, each after a `# In[N]`
    line (N: the cell's place among all the notebook's cells; ` [K]` added where the cell ran
    as input K), each as IPython runs it; the cells that call the grader (GRADER_CELL) left
    out."""
    import nbformat

    if nesting(raw) > MAX_DEPTH:
        raise NotebookError(
            f"{name} nests lists or objects more than {MAX_DEPTH} levels deep, which no "
            f"notebook does; {AGAIN}"
        )
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{name} is not UTF-8 text ({exc.reason}); {AGAIN}") from None
    except ValueError as exc:
        raise NotebookError(f"{name} is not a notebook (not JSON: {exc}); {AGAIN}") from None
    except (RecursionError, MemoryError):
        raise NotebookError(f"{name} is too large or too deeply nested to read; {AGAIN}") from None
    if not isinstance(doc, dict) or type(doc.get("nbformat")) is not int:
        raise NotebookError(f"{name} is not a notebook (no nbformat version); {AGAIN}")
    doc = nbformat.from_dict(doc)
    if doc["nbformat"] < 4:  # nbformat 3 keeps its cells in worksheets
        try:
            doc = nbformat.convert(doc, 4)
        except Exception as exc:
            raise NotebookError(f"{name} is an old notebook ({_short(exc)}); {AGAIN}") from None
    cells = doc.get("cells")
    if not isinstance(cells, list):
        raise NotebookError(f"{name} has no list of cells; {AGAIN}")
    try:
        with warnings.catch_warnings():  # cells without ids (nbformat 4.4 and older) are fine
            warnings.simplefilter("ignore")
            nbformat.validate(doc, relax_add_props=True)
    except nbformat.ValidationError as exc:
        path = list(getattr(exc, "absolute_path", ()) or ())
        where = f", cell {path[1] + 1}" if path[:1] == ["cells"] and len(path) > 1 else ""
        raise NotebookError(
            f"{name}{where} is not a valid notebook ({_short(exc.message)}); {AGAIN}"
        ) from None
    except Exception:  # a validator that cannot run here: the cells are read anyway
        pass
    parts = []
    for i, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        count = cell.get("execution_count")
        ran = f" [{count}]" if type(count) is int and count > 0 else ""
        try:
            text = _cell_text(cell)
            if GRADER_CELL.search(text):
                continue
            parts.append(f"# In[{i}]{ran}\n" + _code(text))
        except NotebookError as exc:
            raise NotebookError(f"{name}, cell {i}: {exc}") from None
    return "\n\n".join(parts) + "\n"


def _short(exc) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def cell_of(source: str, line: int) -> tuple[str, int] | None:
    """(cell, line in that cell) of a line of a source made by to_source, None before the first
    cell (or past the end). The cell is named as the student sees it: `[K]` where it ran as
    input K (Jupyter and Colab show that beside the cell, saved or not), else its place N from
    the top ("3")."""
    lines = source.splitlines()
    if not 1 <= line <= len(lines):
        return None
    for k in range(line - 1, -1, -1):
        found = HEADER.match(lines[k])
        if found:
            label = f"[{found.group(2)}]" if found.group(2) else found.group(1)
            return label, line - 1 - k
    return None


_FRAME = re.compile(r'^(?P<pre>\s*File ")(?P<f>[^"]+)(?P<mid>", line )(?P<n>\d+)(?P<rest>.*)$')
_AT = re.compile(r"(?P<f>[\w.-]+\.py), (?P<word>line|baris) (?P<n>\d+)")


def relocate_frames(lines: list[str], source: str, py_name: str, nb_name: str) -> list[str]:
    """Traceback lines of the worker's copy (`File "x.py", line 30, in f`) as lines of the
    notebook the student has (`File "x.ipynb", cell 5, line 3, in f`)."""
    out = []
    for text in lines:
        m = _FRAME.match(text)
        where = cell_of(source, int(m.group("n"))) if m and m.group("f") == py_name else None
        if m and where:
            cell, n = where
            text = f'{m.group("pre")}{nb_name}", cell {cell}, line {n}{m.group("rest")}'
        out.append(text)
    return out


def relocate_text(text: str, source: str, py_name: str, nb_name: str) -> str:
    """A message's `x.py, line 30` (or `baris 30`) as `x.ipynb, cell 5, line 3`, and other
    mentions of x.py as the notebook."""

    def at(m):
        where = cell_of(source, int(m.group("n"))) if m.group("f") == py_name else None
        if not where:
            return m.group(0)
        cell, n = where
        sel = "sel" if m.group("word") == "baris" else "cell"
        return f"{nb_name}, {sel} {cell}, {m.group('word')} {n}"

    return _AT.sub(at, text).replace(py_name, nb_name)


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


SETUP = """\
# Penilai / the grader. Di Colab, isi REPO dengan URL repositori kursusmu lalu jalankan sel ini.
# In Colab, set REPO to your course repository's URL, then run this cell.
REPO = ""
import os, pathlib, subprocess, sys, types
_WHY = NO_CLONE
_here = pathlib.Path.cwd()
_root = next((p for p in (_here, *_here.parents) if (p / "exercises" / "ORDER").is_file()), None)
if _root is None and "google.colab" in sys.modules:  # Colab: the course, and hypothesis
    _root = pathlib.Path("/content/course")
    _got = (_root / "exercises" / "ORDER").is_file() or bool(REPO) and not subprocess.run(
        ["git", "clone", "-q", REPO, str(_root)], capture_output=True).returncode
    if _got:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "hypothesis"])
        os.chdir(_root)
    else:
        _root = None
        print(_WHY)
if _root is not None and str(_root) not in sys.path:
    sys.path.insert(0, str(_root))
try:
    import grader
except ImportError:  # no course here: say so, wherever the grader is called
    _say = lambda *args, **kwargs: print(_WHY)
    grader = types.SimpleNamespace(check=_say, hint=_say, course=_say)"""
"""The first cell of a notebook starter: the grader of the course the notebook is in (Jupyter,
VS Code), or in Colab the course cloned into /content/course (the kernel then works there) with
the one package Colab lacks; where the clone fails, what to do, and no traceback."""

NO_CLONE = (
    "Repositori kursus belum bisa diambil. Isi REPO dengan URL repositorimu (tombol Code di "
    "GitHub). Repositori privat (GitHub Classroom): pakai URL dengan token, "
    "https://TOKEN@github.com/ORG/REPO.git (buat token di github.com/settings/tokens, cukup "
    "akses baca), atau kerjakan notebook ini di Jupyter/VS Code di komputermu, atau unggah "
    "notebook ini ke repositorimu lewat halaman GitHub: gurumu menilainya di sana. / The "
    "course repository could not be fetched. Set REPO to your repository's URL (the Code "
    "button on GitHub). A private repository (GitHub Classroom): use a URL with a token, "
    "https://TOKEN@github.com/ORG/REPO.git (make one at github.com/settings/tokens, read "
    "access is enough), or work on this notebook in Jupyter/VS Code on your computer, or "
    "upload this notebook to your repository on GitHub's page: your teacher grades it there."
)
"""What the set-up cell says where Colab could not clone the course."""


def setup_cell() -> str:
    """The set-up cell's code, its message spelt out."""
    return SETUP.replace("_WHY = NO_CLONE", f"_WHY = ({_wrapped(NO_CLONE)})")


def _wrapped(text: str, width: int = 88) -> str:
    """A long string as adjacent literals, one per line (a cell stays readable)."""
    import textwrap

    parts = textwrap.wrap(text, width, drop_whitespace=False)
    return "\n    " + "\n    ".join(repr(p) for p in parts) + "\n"


NOTEBOOK_TERMS = (
    (re.compile(r"`python -m grader check (\w+)`"), r'`grader.check("\1")`'),
    (re.compile(r"`python -m grader hint (\w+)`"), r'`grader.hint("\1")`'),
    (re.compile(r"`python -m grader`"), "`grader.course()`"),
)
"""The terminal's commands as a notebook says them (a starter's text speaks of the terminal)."""


def in_notebook_terms(text: str) -> str:
    """A starter's text for its notebook: commands as notebook calls."""
    for pattern, call in NOTEBOOK_TERMS:
        text = pattern.sub(call, text)
    return text


def starter(py_source: str, exercise_id: str) -> dict:
    """A notebook with the .py starter's text: its docstring as markdown, then a code cell per
    top-level block (imports, each function or class), then how to grade it."""
    tree = ast.parse(py_source)
    lines = py_source.splitlines()
    body = list(tree.body)
    cells = [_codecell(setup_cell())]
    doc = ast.get_docstring(tree, clean=True)
    if doc and body and isinstance(body[0], ast.Expr):
        cells.append(_markdown(in_notebook_terms(doc)))
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
            "**Menilai / grading.** Jalankan sel di bawah: penilai menilai notebook ini (yang "
            "tersimpan, atau di Colab sel-sel yang sudah kamu jalankan) dan menampilkan hasilnya "
            f'di sini. `grader.hint("{exercise_id}")` memberi satu petunjuk, `grader.course()` '
            "menampilkan semua latihan. / Run the cell below: the grader grades this notebook "
            "(as saved, or in Colab the cells you ran) and shows the report here. "
            f'`grader.hint("{exercise_id}")` gives one hint at a time, `grader.course()` shows '
            "every exercise."
        )
    )
    cells.append(_codecell(f'grader.check("{exercise_id}")'))
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


def starter_text(py_source: str, exercise_id: str) -> str:
    """The notebook starter's file text, as write_starters writes it."""
    return dumps(starter(py_source, exercise_id))


FOLDER = "notebooks"
"""The notebook starters' folder, beside exercises/."""
COMMAND = "python -m grader.submissions.notebook"
"""The command that writes them (with ids: only those exercises' notebooks)."""


def starter_files(exercises_dir: Path) -> dict[str, Path]:
    """Every exercise's .py starter that has a notebook starter: exercises/<id>/<id>.py, by id."""
    return {
        py.stem: py
        for py in sorted(Path(exercises_dir).glob("*/*.py"))
        if py.stem == py.parent.name
    }


def write_starters(exercises_dir: Path, out: Path, ids=None) -> list[Path]:
    """notebooks/<id>.ipynb for every exercises/<id>/<id>.py starter, or only for the exercises
    `ids` names (an id without a starter raises KeyError, naming it)."""
    starters = starter_files(exercises_dir)
    if ids is not None:
        unknown = [i for i in ids if i not in starters]
        if unknown:
            raise KeyError(", ".join(unknown))
        starters = {i: starters[i] for i in ids}
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for exercise_id, py in starters.items():
        target = out / f"{exercise_id}{SUFFIX}"
        target.write_text(
            starter_text(py.read_text(encoding="utf-8"), exercise_id), encoding="utf-8"
        )
        written.append(target)
    return written


def stale(py: Path, notebook: Path, exercise_id: str) -> str | None:
    """Why the notebook starter is not the one its .py starter makes (missing, or another
    text), in words; None when it is current."""
    want = starter_text(Path(py).read_text(encoding="utf-8"), exercise_id)
    try:
        have = Path(notebook).read_text(encoding="utf-8")
    except FileNotFoundError:
        return "is missing"
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot be read ({exc})"
    return None if have == want else f"is not current with {Path(py).name}"


def main(argv=None) -> int:
    import argparse

    # The course the command runs in (as every grader command finds it), else the grader's own.
    here = Path.cwd().resolve()
    course = next(
        (p for p in (here, *here.parents) if (p / "exercises" / "ORDER").is_file()), None
    )
    root = course or Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="Write the notebook starters (notebooks/<id>.ipynb) from the .py starters "
        "(exercises/<id>/<id>.py): every exercise's, or only those of the ids given; no other "
        "file is touched.",
    )
    parser.add_argument("ids", nargs="*", metavar="ID", help="exercise ids (default: all)")
    parser.add_argument(
        "--root",
        type=Path,
        default=root,
        help="the course folder holding exercises/ and notebooks/ (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    try:
        written = write_starters(
            args.root / "exercises", args.root / FOLDER, list(args.ids) or None
        )
    except KeyError as exc:
        parser.error(f"no starter exercises/ID/ID.py for: {exc.args[0]}")
    for path in written:
        print(path.relative_to(args.root) if path.is_relative_to(args.root) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The grader in a notebook (Jupyter, JupyterLab, VS Code, Colab): `grader.check("<id>")`
grades the notebook the student is working in, `grader.hint("<id>")` shows the next hint and
`grader.course()` the course, through the same sandbox as the command line (a `python -m grader`
process, never the kernel's own), each shown inline once, as HTML.

Which cells are graded: the notebook file where the front end saves it and says where (VS Code's
`__vsc_ipynb_file__`, Jupyter's `JPY_SESSION_NAME`, or `<id>.ipynb` in the kernel's folder);
in Colab (its notebooks live in Drive, and the folder holds the course's clone, not the
student's work), or where that file is still the starter as released while the kernel has run
cells, the cells this kernel ran, in order (IPython's `In`), without the cells that call the
grader. The report says which it graded; cells are named as the front end shows them (`[K]`,
the input they ran as) in both cases.
"""

from __future__ import annotations

import html
import io
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from grader.cli.workingcopy import find_root
from grader.sandbox.magics import IN_WORKER
from grader.submissions.notebook import GRADER_CELL

WIDTH = 100


@dataclass
class Report:
    """What grader.check() returns: shown inline as HTML (the same report as the terminal's)."""

    html: str
    text: str
    exit_code: int
    graded: str
    """Which cells were graded, in words."""
    result: dict | None = None
    """The grader-result/1 JSON of `check` (None for the course view)."""

    def _repr_html_(self) -> str:
        return self.html

    def _repr_pretty_(self, printer, cycle) -> None:  # IPython in a terminal
        printer.text(self.text)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0


WORDS = {
    "en": {
        "file": "Graded {name} as saved {ago} (save with Ctrl+S first if you changed it since).",
        "history": "Graded the {n} cell(s) this kernel ran, in order (this front end does not "
        "save the notebook where the grader can read it; run the cells you changed first).",
        "no_course": "The course folder (the one holding exercises/ORDER) was not found from "
        "{here}. Open the notebook from your copy of the course, or in Colab run the first "
        "cell of the notebook (it fetches the course).",
        "no_cells": "No notebook to grade: save this notebook as {id}.ipynb in {here}, or run "
        "its cells first.",
        "no_id": 'Name the exercise: grader.check("{id}").',
        "course": "The course as saved in {root} (in Colab: as cloned; grader.check grades the "
        "cells you ran).",
        "hint": "Hints for {id}, one more each time.",
    },
    "id": {
        "file": "Menilai {name} sebagaimana disimpan {ago} (simpan dulu dengan Ctrl+S bila "
        "kamu mengubahnya sejak itu).",
        "history": "Menilai {n} sel yang dijalankan kernel ini, berurutan (front end ini tidak "
        "menyimpan notebook di tempat yang bisa dibaca penilai; jalankan dulu sel yang kamu "
        "ubah).",
        "no_course": "Folder kursus (yang berisi exercises/ORDER) tidak ditemukan dari {here}. "
        "Buka notebook dari salinan kursusmu, atau di Colab jalankan sel pertama notebook "
        "(sel itu mengambil kursusnya).",
        "no_cells": "Tidak ada notebook untuk dinilai: simpan notebook ini sebagai {id}.ipynb "
        "di {here}, atau jalankan dulu sel-selnya.",
        "no_id": 'Sebutkan latihannya: grader.check("{id}").',
        "course": "Kursus sebagaimana tersimpan di {root} (di Colab: sebagaimana di-clone; "
        "grader.check menilai sel yang kamu jalankan).",
        "hint": "Petunjuk untuk {id}, satu lagi setiap kali.",
    },
}


def check(*ids: str, lang: str | None = None, fresh: bool = False) -> Report | None:
    """Grade the notebook being worked on (the exercises `ids`) and return the report, which a
    notebook shows inline; with no id, the course (course())."""
    if os.environ.get(IN_WORKER):
        return None  # the notebook is being graded: its own grading cell does nothing
    if not ids:
        return course(lang=lang, fresh=fresh)
    said = lang if lang in WORDS else "id"
    words = WORDS[said]
    here = Path.cwd()
    shell = _shell()
    notebook = _notebook_path(shell, ids, here)
    root = find_root(here) or (find_root(notebook.parent) if notebook else None)
    if root is None:
        return _message(words["no_course"].format(here=here))
    with tempfile.TemporaryDirectory(prefix="grader-notebook-") as tmp:
        folder, graded = _submission(shell, ids, notebook, Path(tmp), said)
        if folder is None:
            return _message(graded)
        json_path = Path(tmp) / "result.json"
        command = ["check", *ids, "--submission", str(folder), "--json", str(json_path)]
        done = _run(command, root, lang, fresh)
        result = None
        if json_path.is_file():
            import json

            result = json.loads(json_path.read_text(encoding="utf-8"))
    return _report(graded, done, result)


def hint(exercise: str, *, all: bool = False, reset: bool = False, lang: str | None = None):
    """The next hint of an exercise (`python -m grader hint`), shown inline."""
    command = ["hint", exercise] + (["--all"] if all else []) + (["--reset"] if reset else [])
    return _in_course(command, lang, lambda words, root: words["hint"].format(id=exercise))


def course(*, lang: str | None = None, fresh: bool = False):
    """The course view (`python -m grader`) of the course the kernel works in, as saved."""
    return _in_course(
        ["--fresh"] if fresh else [], lang, lambda words, root: words["course"].format(root=root)
    )


def _in_course(command: list[str], lang: str | None, said) -> Report | None:
    """`python -m grader COMMAND` in the course the kernel works in, shown under said(words,
    root); nothing while the notebook itself is being graded."""
    if os.environ.get(IN_WORKER):
        return None
    words = WORDS[lang if lang in WORDS else "id"]
    root = find_root(Path.cwd())
    if root is None:
        return _message(words["no_course"].format(here=Path.cwd()))
    return _report(said(words, root), _run(command, root, lang, False))


def _run(command: list[str], root: Path, lang: str | None, fresh: bool):
    """`python -m grader COMMAND` in the course folder, its output captured."""
    command = [sys.executable, "-m", "grader", *command]
    command += ["--lang", lang] if lang else []
    command += ["--fresh"] if fresh else []
    return subprocess.run(
        command, cwd=root, env=_environment(), capture_output=True, text=True, check=False
    )


def _report(graded: str, done, result: dict | None = None) -> Report:
    output = done.stdout + (done.stderr if done.returncode not in (0, 1) else "")
    return Report(
        html=_html(graded, output),
        text=f"{graded}\n{output}",
        exit_code=done.returncode,
        graded=graded,
        result=result,
    )


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def _notebook_path(shell, ids, here: Path) -> Path | None:
    """The notebook file the front end saves, where it says so or it is named for the
    exercise in the kernel's folder; None in Colab, where none is found, and where the file is
    still the starter as released while the kernel has run cells (those are the work)."""
    path = _saved_notebook(shell, ids, here)
    if path is None or "google.colab" in sys.modules:
        return None
    if _ran_cells(shell) and _is_starter(path, here, ids):
        return None
    return path


def _is_starter(path: Path, here: Path, ids) -> bool:
    """Whether the notebook's code is the starter's as released (grader.submissions.answer)."""
    from grader.loader import specfile
    from grader.submissions import answer

    root = find_root(here) or find_root(path.parent)
    spec = root / "exercises" / ids[0] / "exercise.yaml" if root and ids else None
    if spec is None or not spec.is_file():
        return False
    try:
        exercise = specfile.load(spec, root=root)
    except Exception:  # a spec error is the grader's own report's to name
        return False
    return answer.choose(path.parent, exercise).untouched


def _saved_notebook(shell, ids, here: Path) -> Path | None:
    names = []
    if shell is not None:
        names.append(shell.user_ns.get("__vsc_ipynb_file__"))  # VS Code
    names.append(os.environ.get("JPY_SESSION_NAME"))  # Jupyter Server 2: the notebook's path
    for name in names:
        if isinstance(name, str) and name.endswith(".ipynb"):
            path = Path(name) if Path(name).is_absolute() else here / Path(name).name
            if path.is_file():
                return path
    for exercise in ids:
        path = here / f"{exercise}.ipynb"
        if path.is_file():
            return path
    return None


def _submission(
    shell, ids, notebook: Path | None, tmp: Path, lang: str
) -> tuple[Path | None, str]:
    """A folder to grade and what it holds, in words (or None and why there is none)."""
    words = WORDS[lang]
    if notebook is not None:
        ago = _ago(time.time() - notebook.stat().st_mtime, lang)
        graded = words["file"].format(name=notebook.name, ago=ago)
        folder = tmp / "submission"
        folder.mkdir()
        for exercise in ids:
            (folder / f"{exercise}.ipynb").write_bytes(notebook.read_bytes())
        return folder, graded
    cells = _ran_cells(shell)
    if not cells:
        return None, words["no_cells"].format(id=ids[0], here=Path.cwd())
    import nbformat

    doc = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c, execution_count=k) for k, c in cells]
    )
    folder = tmp / "submission"
    folder.mkdir()
    for exercise in ids:
        nbformat.write(doc, str(folder / f"{exercise}.ipynb"))
    return folder, words["history"].format(n=len(cells))


def _ran_cells(shell) -> list[tuple[int, str]]:
    """The cells this kernel ran, in order, each with the input number it ran as, without
    those that call the grader (the set-up cell among them: notebook.GRADER_CELL)."""
    if shell is None:
        return []
    ran = shell.user_ns.get("In") or []
    return [
        (k, c)
        for k, c in enumerate(ran)
        if k and isinstance(c, str) and c.strip() and not GRADER_CELL.search(c)
    ]


def _ago(seconds: float, lang: str) -> str:
    """How long ago, in the report's language (12 s ago, 5 menit lalu)."""
    if seconds < 90:
        n, unit = max(int(seconds), 0), "s" if lang == "en" else "detik"
    elif seconds < 90 * 60:
        n, unit = round(seconds / 60), "min" if lang == "en" else "menit"
    else:
        n, unit = round(seconds / 3600), "h" if lang == "en" else "jam"
    return f"{n} {unit} ago" if lang == "en" else f"{n} {unit} lalu"


def _environment() -> dict:
    """The kernel's environment, with the grader the kernel imported first on the path (the
    course folder may hold none: a course cloned beside the notebook, an installed grader)."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    env.update(COLUMNS=str(WIDTH), FORCE_COLOR="1", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    env.pop(IN_WORKER, None)
    return env


def _html(graded: str, output: str) -> str:
    """The report as the terminal shows it, colours and all (rich's own ANSI to HTML)."""
    from rich.console import Console
    from rich.text import Text

    # force_jupyter=False: in a kernel rich would also display itself, showing the report twice.
    console = Console(
        record=True,
        width=WIDTH,
        file=io.StringIO(),
        color_system="truecolor",
        force_jupyter=False,
    )
    console.print(Text.from_ansi(output))
    body = console.export_html(inline_styles=True, code_format="<pre>{code}</pre>")
    return f"<div><p><em>{html.escape(graded)}</em></p>{body}</div>"


def _message(text: str) -> Report:
    return Report(
        html=f"<div><p><strong>{html.escape(text)}</strong></p></div>",
        text=text,
        exit_code=2,
        graded=text,
    )

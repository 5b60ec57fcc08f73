"""`grader.check("<id>")` in a notebook (Jupyter, JupyterLab, VS Code, Colab): grade the
notebook the student is working in, through the same sandbox as the command line (a
`python -m grader` process, never the kernel's own), and show the report inline as HTML.

Which cells are graded: the notebook file where the front end saves it and says where (VS Code's
`__vsc_ipynb_file__`, Jupyter's `JPY_SESSION_NAME`, or `<id>.ipynb` in the kernel's folder);
elsewhere (Colab keeps notebooks in Drive) the cells this kernel ran, in order (IPython's `In`),
without the cells that call the grader. The report says which it graded.
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
    },
}


def check(*ids: str, lang: str | None = None, fresh: bool = False) -> Report | None:
    """Grade the notebook being worked on (the exercises `ids`; none: the course view of the
    notebook's folder) and return the report, which a notebook shows inline."""
    if os.environ.get(IN_WORKER):
        return None  # the notebook is being graded: its own grading cell does nothing
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
        command = [sys.executable, "-m", "grader"]
        if ids:
            command += ["check", *ids, "--submission", str(folder), "--json", str(json_path)]
        else:
            command += ["--submission", str(folder)]
        command += ["--lang", lang] if lang else []
        command += ["--fresh"] if fresh else []
        done = subprocess.run(
            command, cwd=root, env=_environment(), capture_output=True, text=True, check=False
        )
        result = None
        if json_path.is_file():
            import json

            result = json.loads(json_path.read_text(encoding="utf-8"))
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
    exercise in the kernel's folder; None where none is found (Colab)."""
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
        if not ids:  # the course view of the notebook's folder
            return notebook.parent, graded
        folder = tmp / "submission"
        folder.mkdir()
        for exercise in ids:
            (folder / f"{exercise}.ipynb").write_bytes(notebook.read_bytes())
        return folder, graded
    cells = _ran_cells(shell)
    if not ids:
        return None, words["no_id"].format(id="<id>")
    if not cells:
        return None, words["no_cells"].format(id=ids[0], here=Path.cwd())
    import nbformat

    doc = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    folder = tmp / "submission"
    folder.mkdir()
    for exercise in ids:
        nbformat.write(doc, str(folder / f"{exercise}.ipynb"))
    return folder, words["history"].format(n=len(cells))


def _ran_cells(shell) -> list[str]:
    """The cells this kernel ran, in order, without those that call the grader."""
    if shell is None:
        return []
    ran = shell.user_ns.get("In") or []
    return [c for c in ran[1:] if isinstance(c, str) and c.strip() and "grader.check(" not in c]


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

    console = Console(record=True, width=WIDTH, file=io.StringIO(), color_system="truecolor")
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

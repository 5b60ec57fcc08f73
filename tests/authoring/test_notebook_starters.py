"""Notebook starters: `new` writes one, `validate` misses a missing or stale one (naming the file
and the command that writes it), and that command writes only the exercises it is given."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT

from grader.authoring import scaffold
from grader.authoring.validate import notebook_miss
from grader.cli.main import main
from grader.loader import specfile
from grader.submissions import notebook


def _demo(tmp_path, exercise_id="demo"):
    scaffold.create(root=tmp_path, exercise_id=exercise_id)
    spec = tmp_path / "exercises" / exercise_id / "exercise.yaml"
    return specfile.load(spec, root=tmp_path)


def test_new_writes_the_notebook_starter_from_the_py_starter(tmp_path):
    files = scaffold.create(root=tmp_path, exercise_id="demo")
    nb = tmp_path / "notebooks" / "demo.ipynb"
    assert nb in files
    py = (tmp_path / "exercises" / "demo" / "demo.py").read_text()
    assert nb.read_text() == notebook.starter_text(py, "demo")
    assert 'grader.check(\\"demo\\")' in nb.read_text()


def test_validate_names_a_missing_or_stale_notebook_and_its_fix(tmp_path):
    ex = _demo(tmp_path)
    assert notebook_miss(ex) is None
    py = tmp_path / "exercises" / "demo" / "demo.py"
    py.write_text(py.read_text().replace("TODO title", "Tanh times x"))
    stale = notebook_miss(ex)
    assert stale is not None
    assert "notebooks/demo.ipynb is not current with demo.py" in stale
    assert "`python -m grader.submissions.notebook demo`" in stale
    (tmp_path / "notebooks" / "demo.ipynb").unlink()
    missing = notebook_miss(ex)
    assert missing is not None and "notebooks/demo.ipynb is missing" in missing
    assert notebook.main(["demo", "--root", str(tmp_path)]) == 0
    assert notebook_miss(ex) is None


def test_the_command_writes_only_the_notebooks_it_is_given(tmp_path, capsys):
    _demo(tmp_path, "first")
    _demo(tmp_path, "second")
    for name in ("first", "second"):
        (tmp_path / "notebooks" / f"{name}.ipynb").write_text("old\n")
    assert notebook.main(["second", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.split() == ["notebooks/second.ipynb"]
    assert (tmp_path / "notebooks" / "first.ipynb").read_text() == "old\n"
    assert (tmp_path / "notebooks" / "second.ipynb").read_text() != "old\n"
    with pytest.raises(SystemExit) as stop:
        notebook.main(["nothing_here", "--root", str(tmp_path)])
    assert stop.value.code == 2
    assert "nothing_here" in capsys.readouterr().err
    assert (tmp_path / "notebooks" / "first.ipynb").read_text() == "old\n"
    assert notebook.main(["--root", str(tmp_path)]) == 0  # no ids: every notebook
    assert (tmp_path / "notebooks" / "first.ipynb").read_text() != "old\n"


def test_the_command_answers_help_and_touches_nothing():
    before = {p: p.read_bytes() for p in (ROOT / "notebooks").glob("*.ipynb")}
    done = subprocess.run(
        [sys.executable, "-m", "grader.submissions.notebook", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "usage:" in done.stdout and "ID" in done.stdout
    assert {p: p.read_bytes() for p in (ROOT / "notebooks").glob("*.ipynb")} == before


def test_validate_fails_an_exercise_whose_notebook_starter_is_stale(tmp_path, fast, capsys):
    _demo(tmp_path)
    (tmp_path / "notebooks" / "demo.ipynb").unlink()
    args = ["--exercises-dir", str(tmp_path / "exercises"), *fast]
    code = main(args + ["validate", "demo", "--solutions", str(tmp_path / "solutions")])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "MISS notebooks/demo.ipynb is missing" in out
    assert "python -m grader.submissions.notebook demo" in out
    notebook.main(["demo", "--root", str(tmp_path)])
    capsys.readouterr()
    code = main(args + ["validate", "demo", "--solutions", str(tmp_path / "solutions")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "MISS" not in out and "notebooks/demo.ipynb" not in out

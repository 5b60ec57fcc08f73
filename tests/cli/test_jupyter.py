"""grader.check() in a real Jupyter kernel (nbclient runs a notebook that calls it): the notebook
being worked on is graded through the sandbox and the report is shown inline as HTML."""

from __future__ import annotations

import shutil

import nbformat
import pytest
from conftest import ROOT, SOLUTIONS
from nbclient import NotebookClient

from grader.cli import jupyter
from grader.loader import specfile


@pytest.fixture
def course(tmp_path):
    """A student's copy of the course: exercises/ and config.yaml, and a notebooks/ folder."""
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises")
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    (tmp_path / "notebooks").mkdir()
    return tmp_path


def run(path, cells: list[str]) -> list[dict]:
    """Write cells as the notebook `path`, run it in a kernel in its folder; the last cell's
    outputs."""
    setup = f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport grader"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in [setup, *cells]])
    nbformat.write(nb, str(path))
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    return nb.cells[-1].outputs


def html_of(outputs: list[dict]) -> str:
    shown = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert shown, outputs
    return shown[-1]


def _points() -> float:
    """retain_graph's full marks in a student's own run: its visible checks, bonus aside (the
    hidden ones run only when the class is graded)."""
    spec = specfile.load(ROOT / "exercises" / "retain_graph" / "exercise.yaml")
    return sum(c.points for c in spec.checks if not c.hidden and not c.bonus)


POINTS = _points()
FULL = f"{POINTS:g}/{POINTS:g}"


def test_check_grades_the_saved_notebook_and_shows_the_report_inline(course):
    key = (SOLUTIONS / "retain_graph.py").read_text()
    wrong = "def grad_twice(x):\n    return torch.zeros_like(x), torch.zeros_like(x)"
    cells = [key, wrong, "%time r = grad_twice(torch.tensor([1.0, 2.0]))\nprint(r)"]
    page = html_of(run(course / "notebooks" / "retain_graph.ipynb", [*cells, CHECK]))
    assert "retain_graph.ipynb" in page and "Total:" in page
    assert f"/{POINTS:g}" in page and f"Total: {FULL}" not in page
    assert "✘" in page and "0/2" in page  # grad_twice's check fails, named in the report
    assert "grad_twice gives two equal gradients" in page


CHECK = 'grader.check("retain_graph", lang="en")'


def test_where_the_notebook_is_not_on_disk_the_cells_the_kernel_ran_are_graded(course):
    """As in Colab: the notebook file is not where the kernel runs (here it has another name
    and no front end says where it is)."""
    key = (SOLUTIONS / "retain_graph.py").read_text()
    page = html_of(run(course / "notebooks" / "Untitled.ipynb", [key, CHECK]))
    assert "cell(s) this kernel ran" in page and f"Total: {FULL}" in page


def test_in_a_worker_the_notebooks_own_grading_cell_does_nothing(monkeypatch):
    monkeypatch.setenv(jupyter.IN_WORKER, "1")
    assert jupyter.check("retain_graph") is None


def test_outside_a_course_it_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report = jupyter.check("retain_graph", lang="en")
    assert report is not None and report.exit_code == 2
    assert "exercises/ORDER" in report.text and "exercises/ORDER" in report._repr_html_()


def test_how_long_ago_is_said_in_the_reports_language():
    assert jupyter._ago(30, "id") == "30 detik lalu" and jupyter._ago(30, "en") == "30 s ago"
    assert jupyter._ago(300, "en") == "5 min ago" and jupyter._ago(7200, "id") == "2 jam lalu"


def test_the_report_is_shown_once(course):
    """rich in a kernel would display itself besides writing the HTML it is asked for."""
    key = (SOLUTIONS / "retain_graph.py").read_text()
    outputs = run(course / "notebooks" / "retain_graph.ipynb", [key, CHECK])
    assert [o["output_type"] for o in outputs] == ["execute_result"], outputs


def test_in_colab_the_cells_run_are_graded_not_the_clones_notebook(course):
    """Colab: the clone's own notebooks/<id>.ipynb (the starter) lies in the kernel's folder;
    the cells the student ran are the answer, and they are named as Colab shows them."""
    (course / "notebooks" / "retain_graph.ipynb").write_text(
        (ROOT / "notebooks" / "retain_graph.ipynb").read_text()
    )
    colab = "import sys, types\nsys.modules['google.colab'] = types.ModuleType('google.colab')"
    key = (SOLUTIONS / "retain_graph.py").read_text()
    wrong = "def grad_twice(x):\n    raise ValueError('mine')"
    page = html_of(run(course / "notebooks" / "Untitled.ipynb", [colab, key, wrong, CHECK]))
    assert "cell(s) this kernel ran" in page and f"Total: {FULL}" not in page
    assert "cell [4]" in page  # the wrong cell, input 4 (the set-up cell is input 1)


def test_where_the_saved_file_is_the_starter_the_cells_run_are_graded(course):
    (course / "notebooks" / "retain_graph.ipynb").write_text(
        (ROOT / "notebooks" / "retain_graph.ipynb").read_text()
    )
    key = (SOLUTIONS / "retain_graph.py").read_text()
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in [SETUP_HERE, key, CHECK]]
    )
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(course)}}
    )
    client.execute()  # run in memory, as a front end that has not saved yet
    assert f"Total: {FULL}" in html_of(nb.cells[-1].outputs)


SETUP_HERE = (
    f"import os, sys\nsys.path.insert(0, {str(ROOT)!r})\nos.chdir('notebooks')\nimport grader"
)


def test_hint_and_course_in_a_kernel(course):
    outputs = run(
        course / "notebooks" / "scratch.ipynb",
        ['h = grader.hint("retain_graph", lang="en")\nc = grader.course(lang="en")', "h, c"],
    )
    text = outputs[-1]["data"]["text/plain"]
    assert "Hints for retain_graph" in text and "retain_graph" in text
    assert "The course as saved" in text and "Total:" in text


def test_a_failed_colab_clone_says_what_to_do_without_a_traceback(tmp_path):
    """The notebook starter's own set-up cell, in Colab, where the repository cannot be cloned
    (a private Classroom repository without a token)."""
    from grader.submissions import notebook

    colab = "import sys, types\nsys.modules['google.colab'] = types.ModuleType('google.colab')"
    setup = notebook.setup_cell().replace('REPO = ""', f"REPO = {str(tmp_path / 'nothing')!r}")
    cells = [colab, setup, 'grader.check("retain_graph")']
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    for cell in nb.cells[1:]:
        texts = [o.get("text", "") for o in cell.outputs if o["output_type"] == "stream"]
        assert not [o for o in cell.outputs if o["output_type"] == "error"], cell.outputs
        assert any("TOKEN@github.com" in t for t in texts), cell.outputs

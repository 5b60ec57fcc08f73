"""Notebooks: code cells graded as the .py would be, shell and magic lines skipped, a clear
message for an unreadable notebook, and notebook starters in sync with the .py starters."""

from __future__ import annotations

import json

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, by_id

from grader.report import statuswords
from grader.submissions import notebook


def as_notebook(py_source: str, exercise_id: str, extra: list[str] = ()) -> str:
    """The .py text as a student's notebook: the starter's cells, plus Colab-style extras (a
    shell escape, a magic that cannot run in a worker, a timed cell), then `extra` cells."""
    nb = notebook.starter(py_source, exercise_id)
    nb["cells"].insert(0, notebook._codecell("!pip install -q torch\n%load_ext autoreload"))
    nb["cells"].insert(2, notebook._codecell("%%time\n_warm = 1 + 1"))
    nb["cells"] += [notebook._codecell(text) for text in extra]
    return notebook.dumps(nb)


def document(*cells: dict) -> bytes:
    return json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": list(cells)}
    ).encode()


def code(source) -> dict:
    return {
        "cell_type": "code",
        "metadata": {},
        "outputs": [],
        "execution_count": None,
        "source": source,
    }


def test_cells_run_as_ipython_runs_them_with_their_lines_kept():
    raw = document(
        {"cell_type": "markdown", "metadata": {}, "source": ["# title"]},
        code(["!pip install x\n", "import torch\n"]),
        code("def f(x):\n    %time y = 1\n    return x"),
        code(["%%bash\n", "ls -l\n", "pwd\n"]),
        code("%timeit -n 3 -r 1 f(2)\nz = f(3)"),
    )
    source = notebook.to_source(raw)
    compile(source, "nb.py", "exec")
    assert "get_ipython().system('pip install x')" in source
    assert "    get_ipython().run_line_magic('time', 'y = 1')" in source
    assert "get_ipython().run_cell_magic('bash', '', 'ls -l\\npwd\\n')" in source
    assert "# title" not in source and source.index("import torch") < source.index("def f(x):")
    lines = source.splitlines()
    # every cell keeps its own lines: line k of cell N is k lines below its `# In[N]`
    assert notebook.cell_of(source, lines.index("z = f(3)") + 1) == ("5", 2)
    assert notebook.cell_of(source, lines.index("import torch") + 1) == ("2", 2)
    assert notebook.cell_of(source, lines.index("# In[5]") - 1) == ("4", 3)  # the %%bash end


def test_a_cell_that_ran_is_named_as_the_front_end_shows_it():
    """Jupyter and Colab show `[K]` beside a cell that ran as input K: saved notebooks and the
    cells a kernel ran (grader.cli.jupyter) both name it so; a cell never run, by its place."""
    ran = dict(code("x = 1\ny = f(x)"), execution_count=7)
    raw = document({"cell_type": "markdown", "metadata": {}, "source": "# t"}, code("a = 1"), ran)
    source = notebook.to_source(raw)
    lines = source.splitlines()
    assert "# In[3] [7]" in lines
    assert notebook.cell_of(source, lines.index("y = f(x)") + 1) == ("[7]", 2)
    assert notebook.cell_of(source, lines.index("a = 1") + 1) == ("2", 1)
    frames = notebook.relocate_frames(
        [f'  File "nb.py", line {lines.index("y = f(x)") + 1}, in <module>'],
        source,
        "nb.py",
        "nb.ipynb",
    )
    assert frames == ['  File "nb.ipynb", cell [7], line 2, in <module>']


@pytest.mark.parametrize(
    "raw, why",
    [
        (b"{not json", "not JSON"),
        (b"[]", "no nbformat version"),
        (document(code(3)), "cell 1 is not a valid notebook"),
    ],
)
def test_unreadable_notebook_is_named_with_the_fix(raw, why):
    with pytest.raises(notebook.NotebookError, match=why) as info:
        notebook.to_source(raw, "custom_sigmoid.ipynb")
    assert "custom_sigmoid.ipynb" in str(info.value) and "save it again" in str(info.value)


def test_unreadable_notebook_fails_its_exercise_with_a_message(grade_files):
    result = grade_files({"custom_sigmoid.ipynb": "{oops"}, ids=["custom_sigmoid"])
    ex = by_id(result)["custom_sigmoid"]
    assert ex.status == "error" and ex.score == 0
    assert "custom_sigmoid.ipynb is not a notebook" in ex.message.en
    assert "Download" in ex.message.en


@pytest.mark.parametrize(
    "source",
    [
        SOLUTIONS / "custom_sigmoid.py",
        SOLUTIONS / "mutants" / "custom_sigmoid" / "ignores_upstream.py",
        EXERCISES / "custom_sigmoid" / "custom_sigmoid.py",
    ],
)
def test_notebook_grades_the_same_as_the_py(grade_files, source):
    text = source.read_text()
    as_py = by_id(grade_files({"custom_sigmoid.py": text}, ids=["custom_sigmoid"]))
    as_nb = by_id(
        grade_files(
            {"work/custom_sigmoid.ipynb": as_notebook(text, "custom_sigmoid")},
            ids=["custom_sigmoid"],
        )
    )
    py, nb = as_py["custom_sigmoid"], as_nb["custom_sigmoid"]
    assert nb.file == "work/custom_sigmoid.ipynb"
    assert (nb.status, nb.score) == (py.status, py.score)
    assert [(c.id, c.status, c.points) for c in nb.checks] == [
        (c.id, c.status, c.points) for c in py.checks
    ]


TIMED = [
    "%time r = grad_twice(torch.tensor([1.0, 2.0]))",
    "%%time\ns = grad_twice(torch.tensor([0.5]))\nprint(s)",
    "%timeit -n 1 -r 1 grad_twice(torch.tensor([3.0]))\nprint(r[0] + s[0].sum())",
]
"""Cells that use what a magic ran: a notebook whose %time lines were skipped fails at import."""
AS_PY = """
r = grad_twice(torch.tensor([1.0, 2.0]))
s = grad_twice(torch.tensor([0.5]))
print(s)
grad_twice(torch.tensor([3.0]))
print(r[0] + s[0].sum())
"""


def test_a_notebook_with_magics_grades_like_the_same_code_in_a_py(grade_files):
    key = (SOLUTIONS / "retain_graph.py").read_text()
    py = by_id(grade_files({"retain_graph.py": key + AS_PY}, ids=["retain_graph"]))
    nb = by_id(
        grade_files(
            {"retain_graph.ipynb": as_notebook(key, "retain_graph", TIMED)}, ids=["retain_graph"]
        )
    )
    py, nb = py["retain_graph"], nb["retain_graph"]
    assert py.status == "passed" and py.score == py.max_score, py.message
    assert (nb.status, nb.score) == (py.status, py.score), (nb.message, nb.checks)
    assert [(c.id, c.status) for c in nb.checks] == [(c.id, c.status) for c in py.checks]


def test_a_failing_cell_is_named_by_its_cell_and_line(grade_files):
    key = (SOLUTIONS / "retain_graph.py").read_text()
    text = as_notebook(key, "retain_graph", ["x = 1\n%time y = grad_twice(undefined_name)"])
    cells = json.loads(text)["cells"]
    ex = by_id(grade_files({"retain_graph.ipynb": text}, ids=["retain_graph"]))["retain_graph"]
    assert ex.status == "error" and ex.score == 0
    where = f'File "retain_graph.ipynb", cell {len(cells)}, line 2'
    assert any(line.startswith(where) for line in ex.traceback), ex.traceback
    assert "retain_graph.ipynb" in ex.message.en and "retain_graph.py" not in ex.message.en
    assert "NameError" in ex.message.en


def test_a_py_and_a_notebook_both_changed_grade_the_py_and_say_so(grade_files):
    """grader.submissions.answer: never 0 for having both; the .py is graded, the report names
    the notebook it ignored (a wrong .py, so the choice shows in the score)."""
    key = (SOLUTIONS / "custom_sigmoid.py").read_text()
    wrong = key.replace("return grad_output * ", "return 0 * grad_output * ")
    assert wrong != key
    result = grade_files(
        {"custom_sigmoid.py": wrong, "custom_sigmoid.ipynb": as_notebook(key, "custom_sigmoid")},
        ids=["custom_sigmoid"],
    )
    ex = by_id(result)["custom_sigmoid"]
    assert ex.file == "custom_sigmoid.py" and ex.status == "failed" and ex.score > 0
    assert ex.ignored == [("custom_sigmoid.ipynb", "both")]
    note = statuswords.graded_note(ex.file, ex.ignored, "en")
    assert note and "custom_sigmoid.ipynb" in note and "the .py file is graded" in note


def test_notebook_starters_are_in_sync_with_the_py_starters():
    for py in sorted(EXERCISES.glob("*/*.py")):
        committed = ROOT / "notebooks" / f"{py.stem}.ipynb"
        assert committed.exists(), (
            f"run `python -m grader.submissions.notebook` to write {committed.name}"
        )
        assert committed.read_text() == notebook.dumps(notebook.starter(py.read_text(), py.stem))


def test_notebook_starters_speak_of_the_notebook():
    """A notebook's text names the notebook's calls, never a terminal command that grades the
    .py file instead (the .py starters' docstrings speak of the terminal)."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert "python -m grader check" not in text and "python -m grader hint" not in text
        assert f'grader.check("{path.stem}")' in text and f'grader.hint("{path.stem}")' in text

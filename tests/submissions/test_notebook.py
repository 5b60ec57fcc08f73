"""Notebooks: code cells graded as the .py would be, shell and magic lines skipped, a clear
message for an unreadable notebook, and notebook starters in sync with the .py starters."""

from __future__ import annotations

import json

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, by_id

from grader.submissions import notebook


def as_notebook(py_source: str, exercise_id: str) -> str:
    """The .py text as a student's notebook: the starter's cells, plus Colab-style extras."""
    nb = notebook.starter(py_source, exercise_id)
    nb["cells"].insert(0, notebook._codecell("!pip install -q torch\n%load_ext autoreload"))
    nb["cells"].insert(2, notebook._codecell("%%time\nthis is not python"))
    return notebook.dumps(nb)


def test_code_cells_in_order_with_shell_and_magic_lines_skipped():
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": ["# title"]},
            {"cell_type": "code", "source": ["!pip install x\n", "import torch\n"]},
            {"cell_type": "code", "source": "def f(x):\n    %time y = 1\n    return x"},
            {"cell_type": "code", "source": ["%%bash\n", "ls -l\n"]},
        ]
    }
    source = notebook.to_source(json.dumps(nb).encode())
    compile(source, "nb.py", "exec")
    assert "pass  # !pip install x" in source and "    pass  # %time y = 1" in source
    assert "# title" not in source and "# ls -l" in source
    assert source.index("import torch") < source.index("def f(x):")


@pytest.mark.parametrize(
    "raw, why",
    [
        (b"{not json", "not JSON"),
        (b"[]", "no list of cells"),
        (b'{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1"),
    ],
)
def test_unreadable_notebook_is_named_with_the_fix(raw, why):
    with pytest.raises(notebook.NotebookError, match=why) as info:
        notebook.to_source(raw, "custom_sigmoid.ipynb")
    assert "custom_sigmoid.ipynb" in str(info.value)


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


def test_a_py_and_a_notebook_of_the_same_exercise_are_ambiguous(grade_files):
    text = (SOLUTIONS / "custom_sigmoid.py").read_text()
    result = grade_files(
        {"custom_sigmoid.py": text, "custom_sigmoid.ipynb": as_notebook(text, "custom_sigmoid")},
        ids=["custom_sigmoid"],
    )
    ex = by_id(result)["custom_sigmoid"]
    assert ex.status == "error" and "custom_sigmoid.ipynb" in ex.message.en


def test_notebook_starters_are_in_sync_with_the_py_starters():
    for py in sorted(EXERCISES.glob("*/*.py")):
        committed = ROOT / "notebooks" / f"{py.stem}.ipynb"
        assert committed.exists(), (
            f"run `python -m grader.submissions.notebook` to write {committed.name}"
        )
        assert committed.read_text() == notebook.dumps(notebook.starter(py.read_text(), py.stem))

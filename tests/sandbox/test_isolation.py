"""Broken and hostile submissions fail their own exercise with a named reason; the rest is graded.

Each submission pairs one broken manual_gradient.py with the correct answer saved under a second
exercise name, graded in the same run, to show that the damage stays in one exercise.
"""

from __future__ import annotations

import pytest
from conftest import ROOT, SOLUTIONS, by_id

from grader.grading.grade import grade
from grader.loader import specfile
from grader.loader.config import Config

KEY = (SOLUTIONS / "manual_gradient.py").read_text()


@pytest.fixture(scope="module")
def twin_exercises(tmp_path_factory):
    """manual_gradient and an identical copy `twin`, so one submission holds two exercises."""
    root = tmp_path_factory.mktemp("specs")
    for name in ("manual_gradient", "twin"):
        (root / name).mkdir()
        text = (ROOT / "exercises/manual_gradient/exercise.yaml").read_text()
        (root / name / "exercise.yaml").write_text(
            text.replace("id: manual_gradient", f"id: {name}")
        )
    return specfile.discover(root)


CONFIG = Config(examples=8, time_per_call=1.5, time_per_exercise=20.0)


def run(tmp_path, sandbox, exercises, broken: str):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(broken)
    (sub / "twin.py").write_text(KEY)
    result = grade(submission_dir=sub, exercises=exercises, config=CONFIG, sandbox=sandbox)
    ex = by_id(result)
    twin = ex["twin"]
    assert twin.status == "passed" and twin.score == twin.max_score, "the other exercise suffered"
    return ex["manual_gradient"]


def test_missing_file(tmp_path, sandbox, twin_exercises):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "twin.py").write_text(KEY)
    ex = by_id(grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG, sandbox=sandbox))
    assert ex["manual_gradient"].status == "missing"
    assert ex["manual_gradient"].score == 0
    assert "manual_gradient.py" in ex["manual_gradient"].message.en
    assert ex["twin"].status == "passed"


def test_nested_file_is_found(tmp_path, sandbox, twin_exercises):
    sub = tmp_path / "sub"
    (sub / "zip" / "inner").mkdir(parents=True)
    (sub / "zip" / "inner" / "manual_gradient.py").write_text(KEY)
    (sub / "twin.py").write_text(KEY)
    ex = by_id(grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG, sandbox=sandbox))
    assert ex["manual_gradient"].status == "passed"
    assert ex["manual_gradient"].file == "zip/inner/manual_gradient.py"


def test_two_files_of_the_same_name(tmp_path, sandbox, twin_exercises):
    sub = tmp_path / "sub"
    (sub / "a").mkdir(parents=True)
    (sub / "manual_gradient.py").write_text(KEY)
    (sub / "a" / "manual_gradient.py").write_text(KEY)
    (sub / "twin.py").write_text(KEY)
    ex = by_id(grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG, sandbox=sandbox))
    assert ex["manual_gradient"].status == "error"
    assert "More than one" in ex["manual_gradient"].message.en


def test_syntax_error_names_the_line(tmp_path, sandbox, twin_exercises):
    ex = run(tmp_path, sandbox, twin_exercises, "import torch\n\ndef df(x)\n    return x\n")
    assert ex.status == "error" and ex.score == 0
    assert "SyntaxError" in ex.message.en and "line 3" in ex.message.en


@pytest.mark.parametrize(
    "code, words",
    [
        ("import sys\nsys.exit(0)\n", ["SystemExit"]),
        ("import os\nos._exit(0)\n", ["exited", "code 0"]),
        ("raise KeyboardInterrupt\n", ["KeyboardInterrupt"]),
        ("import ctypes\nctypes.string_at(0)\n", ["signal 11"]),
        ("x = 1 / 0\n", ["ZeroDivisionError"]),
    ],
)
def test_import_that_exits_or_crashes(tmp_path, sandbox, twin_exercises, code, words):
    ex = run(tmp_path, sandbox, twin_exercises, code)
    assert ex.status == "error" and ex.score == 0
    for word in words:
        assert word in ex.message.en


def test_endless_loop_at_import(tmp_path, sandbox, twin_exercises):
    ex = run(tmp_path, sandbox, twin_exercises, "while True:\n    pass\n")
    assert ex.status == "timeout" and ex.score == 0
    assert "time limit" in ex.message.en


def test_endless_loop_in_a_call(tmp_path, sandbox, twin_exercises):
    code = KEY.replace("def df(x):\n", "def df(x):\n    while True:\n        pass\n")
    ex = run(tmp_path, sandbox, twin_exercises, code)
    rows = {c.id: c for c in ex.checks}
    assert ex.status == "timeout"
    assert rows["df_value"].status == "timeout" and "limit" in rows["df_value"].message.en
    assert rows["grad_g_value"].status == "passed"  # a fresh worker graded the rest


def test_exit_inside_a_call(tmp_path, sandbox, twin_exercises):
    code = KEY.replace(
        "def grad_g(x, y):\n", "def grad_g(x, y):\n    import os\n    os._exit(3)\n"
    )
    ex = run(tmp_path, sandbox, twin_exercises, code)
    rows = {c.id: c for c in ex.checks}
    assert rows["grad_g_value"].status == "error" and "code 3" in rows["grad_g_value"].message.en
    assert rows["df_value"].status == "passed"


def test_tensor_subclass_that_claims_equality(tmp_path, sandbox, twin_exercises):
    code = (
        KEY
        + """

class Always(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func.__name__ in ("allclose", "equal", "__eq__", "isclose"):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})


def df(x):
    return torch.zeros_like(x).as_subclass(Always)
"""
    )
    ex = run(tmp_path, sandbox, twin_exercises, code)
    row = {c.id: c for c in ex.checks}["df_value"]
    assert row.status == "failed" and "Always" in row.message.en and "subclass" in row.message.en


def test_monkeypatched_allclose(tmp_path, sandbox, twin_exercises):
    code = "import torch\ntorch.allclose = lambda *a, **k: True\n" + KEY.replace(
        "import torch\n", "", 1
    )
    ex = run(tmp_path, sandbox, twin_exercises, code)
    assert ex.status == "error" and ex.score == 0
    assert "torch.allclose" in ex.message.en


def test_exception_traceback_shows_only_student_frames(tmp_path, sandbox, twin_exercises):
    code = KEY.replace(
        "def df(x):\n",
        "def df(x):\n    return helper(x)\n\n\ndef helper(x):\n    raise ValueError('boom')\n",
    )
    ex = run(tmp_path, sandbox, twin_exercises, code)
    row = {c.id: c for c in ex.checks}["df_value"]
    assert row.status == "error" and "ValueError: boom" in row.message.en
    assert row.traceback and all(
        "grader" not in line and "site-packages" not in line for line in row.traceback
    )
    assert any("in helper" in line for line in row.traceback)

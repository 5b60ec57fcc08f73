"""Reading a submission as Python does (encodings), and naming the near misses when its file is missing."""

from __future__ import annotations

import pytest
from conftest import SOLUTIONS

from grader.grading.grade import grade_exercise
from grader.submissions.files import SourceError, decode_source, near_misses

KEY = (SOLUTIONS / "manual_gradient.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "raw, text",
    [
        (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),  # BOM (Notepad)
        (
            "# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n".encode("latin-1"),
            "# -*- coding: latin-1 -*-\ns = 'caf\xe9'\n",
        ),  # a coding cookie
        (b"x = 1\r\ny = 2\r\n", "x = 1\ny = 2\n"),  # Windows newlines
        ("s = 'caf\xe9'\n".encode(), "s = 'caf\xe9'\n"),
    ],
)
def test_read_source_decodes_as_python_does(tmp_path, raw, text):
    path = tmp_path / "a.py"
    path.write_bytes(raw)
    assert decode_source(path.read_bytes()) == text


@pytest.mark.parametrize(
    "raw, line, encoding",
    [
        (b"x = 1\ny = 2\ns = 'caf\xe9'\n", 3, "utf-8"),  # saved as latin-1
        ("x = 1\n".encode("utf-16"), 1, "utf-8"),
        (b"#!/usr/bin/env python\n# -*- coding: klingon -*-\nx = 1\n", 2, None),  # unknown codec
    ],
)
def test_an_undecodable_file_names_its_line_and_encoding(tmp_path, raw, line, encoding):
    path = tmp_path / "a.py"
    path.write_bytes(raw)
    with pytest.raises(SourceError) as err:
        decode_source(path.read_bytes())
    assert (err.value.line, err.value.encoding) == (line, encoding)
    assert err.value.reason


@pytest.mark.parametrize(
    "name",
    [
        "Manual_Gradient.py",
        "manual_gradient (1).py",
        "manual-gradient.py",
        "manual_gradient.py.txt",
        "manual gradient.py",
        "Copy of manual_gradient.py",
        "manual_gradiant.py",
        "nested/MANUAL_GRADIENT.PY",
    ],
)
def test_near_misses_are_named(tmp_path, name):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("x = 1\n")
    (tmp_path / "custom_sigmoid.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("x\n")
    assert near_misses(tmp_path, "manual_gradient.py") == [name]


def test_near_misses_skip_other_files_and_hidden_folders(tmp_path):
    for name in (
        "custom_sigmoid.py",
        "gradient.py",
        "manual.py",
        ".git/manual-gradient.py",
        "__pycache__/manual_gradient.cpython-311.pyc",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    assert near_misses(tmp_path, "manual_gradient.py") == []


def _grade(tmp_path, sandbox, exercises, fast_config, files: dict):
    sub = tmp_path / "sub"
    sub.mkdir()
    for name, data in files.items():
        (sub / name).write_bytes(data)
    return grade_exercise(
        exercise=exercises["manual_gradient"],
        submission_dir=sub,
        config=fast_config,
        sandbox=sandbox,
    )


def test_a_missing_file_message_names_what_was_there(tmp_path, sandbox, exercises, fast_config):
    ex = _grade(
        tmp_path, sandbox, exercises, fast_config, {"Manual-Gradient (1).py": KEY.encode()}
    )
    assert ex.status == "missing" and ex.score == 0
    assert "Manual-Gradient (1).py" in ex.message.en and "Rename it" in ex.message.en
    assert "Manual-Gradient (1).py" in ex.message.id and "Ganti namanya" in ex.message.id


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),
        lambda text: ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + text).encode("latin-1"),
        lambda text: text.replace("\n", "\r\n").encode("utf-8"),
    ],
    ids=["bom", "latin-1 cookie", "crlf"],
)
def test_a_correct_file_in_any_encoding_python_reads_gets_full_marks(
    tmp_path, sandbox, exercises, fast_config, encode
):
    ex = _grade(tmp_path, sandbox, exercises, fast_config, {"manual_gradient.py": encode(KEY)})
    assert ex.status == "passed" and ex.score == ex.max_score, ex.message


def test_an_undecodable_file_is_an_error_with_line_and_advice(
    tmp_path, sandbox, exercises, fast_config
):
    data = ("# catatan: caf\xe9\n" + KEY).encode("latin-1")
    ex = _grade(tmp_path, sandbox, exercises, fast_config, {"manual_gradient.py": data})
    assert ex.status == "error" and ex.score == 0
    assert "manual_gradient.py, line 1" in ex.message.en and "utf-8" in ex.message.en
    assert "Save the file as UTF-8" in ex.message.en and "Simpan file sebagai" in ex.message.id

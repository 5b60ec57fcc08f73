"""Class outputs no submission's name can break: every per-submission file gets a safe, unique
name of bounded length (the original name inside it), and CSV cells never run as formulas."""

from __future__ import annotations

import csv
import errno
import json
import os
import shutil

import pytest
from classdata import submission
from conftest import SOLUTIONS

from grader.batch import run as batch
from grader.cli import main as cli
from grader.common import safetext
from grader.report import feedback, gradescope

LONG = "a" * 255
"""The longest name a file system takes (255 bytes)."""
HOSTILE = [
    LONG,
    "a" * 254 + "b",  # the same as LONG once shortened
    "é" * 127 + "a",  # 255 bytes of two-byte letters
    "字" * 85,  # 255 bytes of three-byte letters, 85 characters: once a plain name
    "字" * 84 + "ab",
    "字" * 84 + "ac",  # the same as the one above once shortened
    " ",
    "  ",
    " . ",
    " ..",
    '=HYPERLINK("http:x","y")',
    "@SUM(1+1)",
    "+1",
    "-1",
    "con",
    "Ana",
    "ana",  # one file with Ana on macOS and Windows
    "ok",
]


def test_every_name_gets_its_own_file_name_of_bounded_length(tmp_path):
    names = HOSTILE + ["..", "...", ".", "\udcff" * 60, "x/y", "ana_b", "ana b"]
    made = safetext.file_names(names)
    assert set(made) == set(names)
    assert len({m.casefold() for m in made.values()}) == len(names)  # no two alike
    for name, m in made.items():
        assert len(m.encode()) <= safetext.FILE_NAME_BYTES, name
        assert safetext.FILE_NAME.match(m) and not m.endswith("."), (name, m)
        assert "/" not in m and m.isprintable()
        # a file of that name, and the temporary file written beside it, can be made
        safetext.atomic_write(tmp_path / f"{m}.md", name.encode("utf-8", "replace").decode())
    assert len(list(tmp_path.iterdir())) == len(names)
    assert safetext.file_names(reversed(names)) == made  # the same, whatever the order
    assert made["ok"] == "ok" and made["Ana"] == "Ana" and made["ana"] != "ana"


def test_a_written_copy_of_another_name_s_safe_name_takes_no_file_of_it():
    victim = "ana b"
    forged = safetext.file_name(victim)  # a folder named like the classmate's feedback file
    made = safetext.file_names([victim, forged])
    assert made[victim] != made[forged]


def test_feedback_and_gradescope_write_one_file_per_submission_with_its_name(tmp_path):
    results = [submission(n, {"a": "failed"}) for n in HOSTILE]
    feedback.write(tmp_path, results, "en")
    gradescope.write(tmp_path, results, "en")
    written = sorted((tmp_path / "feedback").iterdir())
    assert len(written) == len(HOSTILE)
    titles = {p.read_text(encoding="utf-8").splitlines()[0] for p in written}
    for name in HOSTILE:  # the whole name, as Markdown shows it
        assert f"# Feedback: {feedback._plain(name)}" in titles, name
    folders = list((tmp_path / "gradescope").iterdir())
    assert len(folders) == len(HOSTILE)
    names = {
        json.loads((f / "results.json").read_text())["extra_data"]["submission"] for f in folders
    }
    assert names == set(HOSTILE)


def test_a_file_system_that_refuses_a_name_gets_an_ascii_one(tmp_path, monkeypatch):
    real = safetext.atomic_write

    def picky(path, text, newline=None):  # a file system that takes ASCII names only
        if not path.name.isascii():
            raise OSError(errno.EILSEQ, "Invalid or incomplete multibyte character", str(path))
        return real(path, text, newline)

    monkeypatch.setattr(feedback, "atomic_write", picky)
    monkeypatch.setattr(gradescope, "atomic_write", picky)
    results = [submission(n, {}) for n in ("字" * 84 + "ab", "é" * 3, "ana")]
    feedback.write(tmp_path, results, "en")
    gradescope.write(tmp_path, results, "en")
    assert len(list((tmp_path / "feedback").iterdir())) == 3
    assert (tmp_path / "feedback" / "ana.md").is_file()
    assert len([p for p in (tmp_path / "gradescope").rglob("results.json")]) == 3


def test_the_id_keeps_the_whole_folder_name(tmp_path):
    for name in (LONG, "a" * 254 + "b"):
        (tmp_path / name).mkdir()
    ids = sorted(t.id for t in batch.discover(tmp_path))
    assert ids == sorted([LONG, "a" * 254 + "b"])


@pytest.fixture
def hostile_class(tmp_path):
    klass = tmp_path / "class"
    klass.mkdir()
    for name in HOSTILE:
        os.mkdir(klass / name)
        shutil.copyfile(SOLUTIONS / "manual_gradient.py", klass / name / "manual_gradient.py")
    return klass


def test_a_class_of_hostile_names_all_get_their_feedback(tmp_path, hostile_class, capsys):
    """`batch` on folders of 255 bytes, names alike once shortened, formulas, dots and spaces:
    exit 0, every classmate graded and given feedback, grades.csv without a formula."""
    config = tmp_path / "config.yaml"
    config.write_text("language: en\nexamples: 2\n")
    out = tmp_path / "out"
    code = cli.main(
        [
            "--config",
            str(config),
            "batch",
            str(hostile_class),
            "--out",
            str(out),
            "--exercises",
            "manual_gradient",
            "--jobs",
            "2",
        ]
    )
    assert code == 0, capsys.readouterr()
    written = list((out / "feedback").iterdir())
    assert len(written) == len(HOSTILE)
    titles = {p.read_text(encoding="utf-8").splitlines()[0] for p in written}
    assert all(f"# Feedback: {feedback._plain(n)}" in titles for n in HOSTILE)
    assert len(list((out / "gradescope").iterdir())) == len(HOSTILE)
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(HOSTILE)
    assert all(r["manual_gradient"] == r["max_score"] for r in rows)  # the key, full marks
    assert not {r["submission"].lstrip(" ")[:1] for r in rows} & set("=+-@\t\r")
    assert {r["submission"] for r in rows} >= {"'-1", "'+1", "'@SUM(1+1)", LONG}

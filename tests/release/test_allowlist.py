"""The release writes the files the course declares, and only those; the leak check finds an
answer key in every form it may take there (a worked example, a notebook cell, an encoded or
compressed string, a data file).

These tests write the release's tree and run its leak check directly (build.write_tree,
selfcheck.check_leaks): the starters' and keys' grading, which the full release adds, is in
test_release.py.
"""

import base64
import bz2
import codecs
import gzip
import json
import shutil
import zlib

import pytest
from conftest import ROOT, SOLUTIONS

from grader.common import plugins
from grader.common.errors import GraderError, SpecError
from grader.loader import specfile
from grader.release import build
from grader.release import selfcheck as releasecheck

EX = "custom_sigmoid"
KEY = (SOLUTIONS / f"{EX}.py").read_text()
STARTER = f"exercises/{EX}/{EX}.py"


@pytest.fixture
def course(tmp_path):
    """A teacher's project of one exercise, its key, and its notebook starter."""
    root = tmp_path / "course"
    (root / "exercises" / EX).mkdir(parents=True)
    for name in ("exercise.yaml", f"{EX}.py"):
        shutil.copyfile(ROOT / "exercises" / EX / name, root / "exercises" / EX / name)
    (root / "exercises" / "ORDER").write_text(f"{EX}\n")
    (root / "solutions").mkdir()
    shutil.copyfile(SOLUTIONS / f"{EX}.py", root / "solutions" / f"{EX}.py")
    (root / "notebooks").mkdir()
    shutil.copyfile(ROOT / "notebooks" / f"{EX}.ipynb", root / "notebooks" / f"{EX}.ipynb")
    return root


def load(root):
    return specfile.load(root / "exercises" / EX / "exercise.yaml", root)


def declare(root, *names):
    spec = root / "exercises" / EX / "exercise.yaml"
    spec.write_text(spec.read_text() + "handout:\n" + "".join(f"  - {name}\n" for name in names))


def staged(root, dest):
    exercise = load(root)
    build.write_tree(root=root, exercises=[exercise], dest=dest)
    return exercise


def names(folder):
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def notebook(*cells):
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "metadata": {}, "outputs": [], "source": c.splitlines(True)}
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def test_undeclared_files_of_an_exercise_are_left_out_and_named(course, tmp_path):
    folder = course / "exercises" / EX
    (folder / "worked_example.py").write_text(KEY)
    (folder / "worked.ipynb").write_text(notebook(KEY))
    (folder / "data").mkdir()
    (folder / "data" / "points.csv").write_text("x,y\n1,2\n")
    (course / "notebooks" / "extra.ipynb").write_text(notebook("x = 1\n"))
    exercise = staged(course, tmp_path / "release")
    assert [n for n in names(tmp_path / "release") if not n.startswith("grader/")] == sorted(
        [
            ".github/workflows/grader.yml",
            ".gitignore",
            "README.md",
            f"exercises/{EX}/{EX}.py",
            f"exercises/{EX}/exercise.yaml",
            "exercises/ORDER",
            f"notebooks/{EX}.ipynb",
        ]
    )
    assert build.left_out(course, [exercise]) == [
        f"exercises/{EX}/data/points.csv",
        f"exercises/{EX}/worked.ipynb",
        f"exercises/{EX}/worked_example.py",
        "notebooks/extra.ipynb",
    ]
    # The teacher's copy of the key beside the starter is no longer taken as handed out.
    releasecheck.check_leaks(tmp_path / "release", course, [exercise])


def test_a_copy_of_the_key_beside_the_starter_does_not_excuse_the_starters_copy(course, tmp_path):
    folder = course / "exercises" / EX
    (folder / "worked_example.py").write_text(KEY)
    starter = folder / f"{EX}.py"
    starter.write_text(starter.read_text() + f"\nEXAMPLE = '''\n{KEY}'''\n")
    exercise = staged(course, tmp_path / "release")
    with pytest.raises(GraderError, match=rf"{STARTER}, line \d+.*solutions/{EX}\.py"):
        releasecheck.check_leaks(tmp_path / "release", course, [exercise])


def test_a_declared_worked_example_ships_and_is_checked(course, tmp_path):
    (course / "exercises" / EX / "worked_example.py").write_text(KEY)
    declare(course, "worked_example.py")
    exercise = staged(course, tmp_path / "release")
    assert (tmp_path / "release" / "exercises" / EX / "worked_example.py").is_file()
    assert build.left_out(course, [exercise]) == []
    with pytest.raises(GraderError, match=rf"exercises/{EX}/worked_example\.py, line \d+"):
        releasecheck.check_leaks(tmp_path / "release", course, [exercise])


def test_a_declared_harmless_handout_ships_and_passes(course, tmp_path):
    folder = course / "exercises" / EX
    (folder / "data").mkdir()
    (folder / "data" / "points.csv").write_text("x,y\n1,2\n")
    (folder / "demo.ipynb").write_text(notebook("import torch\nx = torch.randn(3)\n"))
    declare(course, "data/points.csv", "demo.ipynb")
    exercise = staged(course, tmp_path / "release")
    assert (tmp_path / "release" / "exercises" / EX / "data" / "points.csv").is_file()
    releasecheck.check_leaks(tmp_path / "release", course, [exercise])


@pytest.mark.parametrize(
    "handout, why",
    [
        ("missing.py", "missing.py does not exist"),
        ("../../solutions/custom_sigmoid.py", "inside the exercise's folder"),
        ("/etc/passwd", "inside the exercise's folder"),
        ("plugin/teacher.py", "never ships"),
        ("exercise.yaml", "already"),
        (f"{EX}.py", "already"),
    ],
)
def test_a_bad_handout_is_a_spec_error_with_its_line(course, handout, why):
    declare(course, handout)
    with pytest.raises(SpecError, match=r"exercise\.yaml, line \d+, handout\[0\]: .*") as err:
        load(course)
    assert why in str(err.value) and "handout" in err.value.message


def test_a_declared_starter_that_does_not_exist_stops_the_release(course, tmp_path):
    spec = course / "exercises" / EX / "exercise.yaml"
    spec.write_text(spec.read_text().replace(f"id: {EX}\n", f"id: {EX}\nfile: mine.py\n", 1))
    with pytest.raises(SpecError, match=r"exercise\.yaml, line \d+, file: .*mine\.py"):
        build.write_tree(root=course, exercises=[load(course)], dest=tmp_path / "release")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _split(text: str) -> str:
    third = len(text) // 3
    return " + ".join(repr(text[i : i + third]) for i in range(0, len(text), third))


KEY_BYTES = KEY.encode()
GZIPPED = gzip.compress(KEY_BYTES, mtime=0)  # the same bytes in every worker: no timestamp
ENCODED = {
    "plain text in a string": f"EXAMPLE = '''\n{KEY}'''\n",
    "base64": f"EXAMPLE = {_b64(KEY_BYTES)!r}\n",
    "base64 over lines": f'EXAMPLE = """\n{base64.encodebytes(KEY_BYTES).decode()}"""\n',
    "gzip+base64": f"EXAMPLE = {_b64(GZIPPED)!r}\n",
    "zlib+hex": f"EXAMPLE = {zlib.compress(KEY_BYTES).hex()!r}\n",
    "bz2+base64 in pieces": f"EXAMPLE = {_split(_b64(bz2.compress(KEY_BYTES)))}\n",
    "urlsafe base64 of gzip": f"EXAMPLE = {base64.urlsafe_b64encode(GZIPPED)!r}\n",
    "base64 twice": f"EXAMPLE = {_b64(_b64(KEY_BYTES).encode())!r}\n",
    "escaped bytes": f"EXAMPLE = {KEY_BYTES!r}\n",
    "rot13": f"EXAMPLE = '''\n{codecs.encode(KEY, 'rot13')}'''\n",
    "reversed": f"EXAMPLE = {KEY[::-1]!r}\n",
    "comment with other spacing": "\n".join(
        "# " + "".join(line.split()) + "  # mine" for line in KEY.splitlines()
    )
    + "\n",
}


@pytest.mark.parametrize("form", list(ENCODED))
def test_a_key_hidden_in_a_starter_stops_the_release(course, tmp_path, form):
    starter = course / "exercises" / EX / f"{EX}.py"
    starter.write_text(starter.read_text() + "\n" + ENCODED[form])
    exercise = staged(course, tmp_path / "release")
    with pytest.raises(GraderError, match=rf"{STARTER}, line \d+.*solutions/{EX}\.py"):
        releasecheck.check_leaks(tmp_path / "release", course, [exercise])


@pytest.mark.parametrize(
    "name, content",
    [
        ("worked.ipynb", notebook("import torch\n", KEY)),
        ("data.json", json.dumps({"examples": [{"code": KEY}]})),
        ("key.py.gz", GZIPPED),
        ("notes.txt", "The key, for later: " + _b64(GZIPPED) + "\n"),
    ],
    ids=["worked.ipynb", "data.json", "key.py.gz", "notes.txt"],
)
def test_a_key_in_a_declared_handout_stops_the_release(course, tmp_path, name, content):
    path = course / "exercises" / EX / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    declare(course, name)
    exercise = staged(course, tmp_path / "release")
    with pytest.raises(GraderError, match=rf"exercises/{EX}/{name}.*solutions/{EX}\.py"):
        releasecheck.check_leaks(tmp_path / "release", course, [exercise])


def test_a_key_in_the_notebook_starter_stops_the_release(course, tmp_path):
    (course / "notebooks" / f"{EX}.ipynb").write_text(notebook(KEY))
    exercise = staged(course, tmp_path / "release")
    with pytest.raises(GraderError, match=rf"notebooks/{EX}\.ipynb.*notebook cell 1"):
        releasecheck.check_leaks(tmp_path / "release", course, [exercise])


def test_a_key_planted_in_the_grader_package_stops_the_release(course, tmp_path):
    """The grader's own source excuses the few lines it shares with a key by chance, never a
    file that holds several of them."""
    exercise = staged(course, tmp_path / "release")
    (tmp_path / "release" / "grader" / "worked_example.py").write_text(KEY)
    with pytest.raises(GraderError, match=r"grader/worked_example\.py, line \d+"):
        releasecheck.check_leaks(tmp_path / "release", course, [exercise])


def test_the_real_course_releases_exactly_its_declared_files(tmp_path):
    exercises = specfile.discover(ROOT / "exercises", root=ROOT)
    dest = tmp_path / "release"
    build.write_tree(root=ROOT, exercises=exercises, dest=dest)
    expected = {
        ".github/workflows/grader.yml",
        ".gitignore",
        "README.md",
        "config.yaml",
        "pyproject.toml",
        "requirements.txt",
        "docs/students.md",
        "exercises/ORDER",
    }
    for e in exercises:
        expected |= {f"exercises/{e.id}/{e.file}", f"exercises/{e.id}/exercise.yaml"}
        expected |= {f"exercises/{e.id}/{h}" for h in e.handout}
        expected.add(f"notebooks/{e.id}.ipynb")
        if e.plugin is not None:
            expected |= {
                f"exercises/{e.id}/plugin/{p.relative_to(e.plugin).as_posix()}"
                for p in plugins.shipped(e.plugin)
            }
    package = ROOT / "grader"
    expected |= {
        p.relative_to(ROOT).as_posix()
        for p in package.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    expected |= {
        p.relative_to(ROOT).as_posix() for p in (package / "templates").rglob("*") if p.is_file()
    }
    assert set(names(dest)) == expected
    assert build.left_out(ROOT, exercises) == []
    releasecheck.check_layout(dest)
    releasecheck.check_leaks(dest, ROOT, exercises)


def test_a_missing_default_starter_stops_the_release_naming_the_default(course, tmp_path):
    (course / "exercises" / EX / f"{EX}.py").unlink()
    with pytest.raises(SpecError, match=rf"exercise\.yaml: the starter {EX}\.py .*`file:`"):
        build.write_tree(root=course, exercises=[load(course)], dest=tmp_path / "release")


def test_the_students_requirements_drop_the_teachers_ones_with_their_comments():
    text = (
        "# Pinned for this course: the CPU build.\n"
        "torch==2.13.0\n"
        "# Below 9.2: a plugin's bug (pytest-xdist#1386).\n"
        "pytest>=8.0,<9.2\n"
        "# The tests run in a worker per CPU.\n"
        "pytest-xdist>=3.5\n"
        "# --plot draws with it.\n"
        "matplotlib>=3.7\n"
        "# Similar code between submissions: copydetect's fingerprints\n"
        "# (it brings pygments).\n"
        "copydetect>=0.5,<0.6\n"
    )
    assert build.public_requirements(text) == (
        "# Pinned for this course: the CPU build.\n"
        "torch==2.13.0\n"
        "# --plot draws with it.\n"
        "matplotlib>=3.7\n"
    )
    real = build.public_requirements((ROOT / "requirements.txt").read_text())
    assert "torch==" in real and "pytest" not in real and "copydetect" not in real

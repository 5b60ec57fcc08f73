"""A submission is data: only regular files inside it, read with a cap, parsed in a child."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.submissions import files as submission


def test_locate_ignores_links_fifos_and_folders(tmp_path):
    sub = tmp_path / "sub"
    (sub / "a").mkdir(parents=True)
    (sub / "b").mkdir()
    (sub / "c" / "f.py").mkdir(parents=True)  # a folder named like the file
    secret = tmp_path / "secret.py"
    secret.write_text("KEY = 1\n")
    os.symlink(secret, sub / "a" / "f.py")
    os.mkfifo(sub / "b" / "f.py")
    os.symlink(tmp_path, sub / "loop")  # a link to a folder is not walked
    assert submission.locate(sub, "f.py") == []
    (sub / "d").mkdir()
    (sub / "d" / "f.py").write_text("x = 1\n")
    assert submission.locate(sub, "f.py") == [sub / "d" / "f.py"]
    os.symlink(sub, tmp_path / "linked")
    assert submission.locate(tmp_path / "linked", "f.py") == []


def test_deep_folders_do_not_crash_the_walk(tmp_path):
    deep = tmp_path
    for _ in range(submission.MAX_DEPTH + 5):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "f.py").write_text("x = 1\n")
    shallow = tmp_path
    for _ in range(submission.MAX_DEPTH - 2):
        shallow = shallow / "s"
    shallow.mkdir(parents=True)
    (shallow / "f.py").write_text("x = 1\n")
    assert submission.locate(tmp_path, "f.py") == [shallow / "f.py"]


def test_read_capped_refuses_links_devices_and_large_files(tmp_path):
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * 100)
    with pytest.raises(submission.UnsafeFile, match="limit"):
        submission.read_capped(big, limit=50)
    assert submission.read_capped(big, limit=100) == b"#" * 100
    os.symlink(big, tmp_path / "link.py")
    with pytest.raises(submission.UnsafeFile, match="link"):
        submission.read_capped(tmp_path / "link.py")
    with pytest.raises(OSError):
        submission.read_capped(Path("/dev/zero"))


def test_scratch_copy_takes_only_regular_siblings(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "f.py").write_text("import helper\n")
    (sub / "helper.py").write_text("X = 1\n")
    os.symlink("/dev/zero", sub / "zero.py")
    os.symlink("/etc/passwd", sub / "passwd.py")
    scratch = submission.scratch_copy(sub / "f.py", b"import helper\n")
    try:
        assert sorted(p.name for p in scratch.iterdir()) == ["f.py", "helper.py"]
    finally:
        submission.remove(scratch)


def test_scratch_copy_takes_the_siblings_the_file_names(tmp_path):
    """A flat folder holds the course's other exercises: the copy gets the helpers the file
    names (and those they name), spelled as Python reads names; a name built at run time
    finds nothing, since the copy holds only what is named."""
    sub = tmp_path / "sub"
    sub.mkdir()
    source = (
        "import helper\n"
        "import \uff4eormalised  # NFKC: the identifier `normalised`\n"
        "mod = __import__('oth' + 'er')\n"
    ).encode()
    (sub / "f.py").write_bytes(source)
    (sub / "helper.py").write_text("from util import X\n")
    (sub / "util.py").write_text("X = 1\n")
    (sub / "normalised.py").write_text("Y = 2\n")
    (sub / "other.py").write_text("Z = 3\n")
    (sub / "manual_sgd.py").write_text("def step(): ...\n")
    scratch = submission.scratch_copy(sub / "f.py", source)
    try:
        got = sorted(p.name for p in scratch.iterdir())
        assert got == ["f.py", "helper.py", "normalised.py", "util.py"]
    finally:
        submission.remove(scratch)
    every = [n for n, _ in submission.beside(sub / "f.py")]  # without the source: all of them
    assert every == ["helper.py", "manual_sgd.py", "normalised.py", "other.py", "util.py"]


def test_pathological_source_is_refused_by_the_limited_parser():
    with pytest.raises(submission.TooComplex):
        submission.parse("x = " + "-" * 300_000 + "1\n", "f.py")
    with pytest.raises(SyntaxError):
        submission.parse("def f(:\n" + "# padding\n" * 1000, "f.py")
    assert submission.parse("x = 1\n" + "# padding\n" * 1000, "f.py").body

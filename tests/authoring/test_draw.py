"""`grader draw`: the course's examples written once, rewritten only when they change, and
never from an answer key that does not get full marks."""

from __future__ import annotations

import shutil

import pytest
import torch
from conftest import COURSE_CONFIG, ROOT, SOLUTIONS, course_copy, drawn_here

from grader.authoring import draw
from grader.cli.main import main
from grader.loader import committed


@drawn_here
def test_draw_writes_once_and_rewrites_only_what_changed(tmp_path, sandbox, store, monkeypatch):
    monkeypatch.setattr(committed, "_off", False)
    exercise, path = course_copy(tmp_path)
    before = path.read_bytes()
    done = draw.draw(exercise=exercise, solutions=SOLUTIONS, config=COURSE_CONFIG, sandbox=sandbox)
    assert not done.changed and path.read_bytes() == before  # the course's file is current
    entries = committed.read(path, committed.allowed())
    original = committed.read(path, committed.allowed())
    k = next(iter(entries))
    first = entries[k]["inputs"][0]
    tensor = next(n for n, v in first.items() if isinstance(v, torch.Tensor))
    first[tensor] = first[tensor] + 1  # one example that is not what hypothesis draws
    assert committed.write(exercise, entries)
    done = draw.draw(exercise=exercise, solutions=SOLUTIONS, config=COURSE_CONFIG, sandbox=sandbox)
    assert done.changed and committed.vouched(exercise)
    assert committed.alike(committed.read(path, committed.allowed()), original)
    assert not committed.alike(entries, original)
    assert (done.checks, done.examples) == (
        len(entries),
        sum(len(e["inputs"]) for e in entries.values()),
    )


def test_draw_refuses_an_answer_key_without_full_marks(tmp_path, sandbox, store):
    from grader.common.errors import GraderError

    exercise, path = course_copy(tmp_path)
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    mutant = sorted((SOLUTIONS / "mutants" / "custom_sigmoid").glob("*.py"))[0]
    shutil.copyfile(mutant, solutions / "custom_sigmoid.py")
    before = path.read_bytes()
    with pytest.raises(GraderError, match="does not get full marks"):
        draw.draw(exercise=exercise, solutions=solutions, config=COURSE_CONFIG, sandbox=sandbox)
    with pytest.raises(GraderError, match="no answer key"):
        draw.draw(
            exercise=exercise, solutions=tmp_path / "none", config=COURSE_CONFIG, sandbox=sandbox
        )
    assert path.read_bytes() == before


def test_the_command_writes_a_missing_file_and_says_so(tmp_path, store, monkeypatch, capsys):
    monkeypatch.setattr(committed, "_off", False)
    monkeypatch.setenv("COLUMNS", "200")
    exercise, path = course_copy(tmp_path)
    path.unlink()
    shutil.copyfile(ROOT / "config.yaml", tmp_path / "config.yaml")
    args = [
        "--exercises-dir",
        str(tmp_path / "exercises"),
        "--config",
        str(tmp_path / "config.yaml"),
    ]
    assert main([*args, "draw", "custom_sigmoid", "--solutions", str(SOLUTIONS)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    held = committed.read(path, committed.allowed())
    count = sum(len(e["inputs"]) for e in held.values())
    assert (
        f"custom_sigmoid: {len(draw.entries(exercise, COURSE_CONFIG))} checks, {count} examples: "
        "exercises/custom_sigmoid/examples.drawn written"
    ) in out
    assert committed.vouched(exercise)
    assert main([*args, "draw", "--solutions", str(SOLUTIONS)]) == 0
    assert "examples.drawn unchanged" in capsys.readouterr().out
    assert main([*args, "draw", "nope"]) == 2
    assert "unknown exercise" in capsys.readouterr().err

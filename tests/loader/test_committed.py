"""The course's committed examples (exercises/<id>/examples.drawn): current, read in place of
drawing with the same verdicts, and never trusted beyond what they were written for."""

from __future__ import annotations

import dataclasses
import os
import pickle
import shutil
import zlib

import pytest
from conftest import (
    COURSE,
    COURSE_CONFIG,
    EXERCISES,
    SOLUTIONS,
    course_copy,
    drawn_here,
    mutant_folders,
    verdicts_of,
)

from grader.authoring import draw
from grader.checks import KINDS
from grader.grading import examples
from grader.grading.grade import grade, to_draw
from grader.loader import committed, reftrial, specfile


def _first_check(exercise):
    """The exercise's first check that draws examples, with its example count and seed under
    the course's config."""
    _, check, _, count, seed = to_draw([exercise], COURSE_CONFIG, include_hidden=False)[0]
    return check, count, seed


@pytest.fixture
def reading(store, draws, monkeypatch):
    """Committed examples read (a batch test in this process may have turned them off), an
    empty store; counts the checks really drawn."""
    monkeypatch.setattr(committed, "_off", False)
    return draws


@drawn_here
@pytest.mark.spread
@pytest.mark.parametrize("exercise_id", COURSE)
def test_the_committed_examples_are_what_the_grader_draws_now(
    exercise_id, exercises, sandbox, store, monkeypatch
):
    """Drawn again with hypothesis and computed again on the answer key: the same examples,
    the same references (within a rounding error), every check, stamped for this spec. A spec,
    a strategy or a kind changed without `python -m grader draw` fails here."""
    monkeypatch.setattr(committed, "_off", False)
    exercise = exercises[exercise_id]
    fix = f"run `python -m grader draw {exercise_id}` and commit exercises/{exercise_id}/"
    assert committed.vouched(exercise), f"{committed.FILE} is not stamped for this spec: {fix}"
    held = committed.read(committed.path(exercise), committed.allowed())
    now = draw.fresh(exercise=exercise, solutions=SOLUTIONS, config=COURSE_CONFIG, sandbox=sandbox)
    assert held.keys() == now.keys(), f"checks missing or left over: {fix}"
    assert committed.alike(held, now), f"examples or references differ: {fix}"
    assert all(len(e["inputs"]) > 0 for e in now.values())


@drawn_here
def test_a_cold_check_reads_them_and_grades_as_hypothesis_alone(
    exercises, sandbox, reading, monkeypatch, tmp_path
):
    """The key and two mutants of an exercise: the same verdicts and counterexamples from the
    committed examples as from examples drawn now, without drawing one."""
    exercise = exercises["manual_gradient"]
    subs = {"key": (SOLUTIONS, None), **mutant_folders(tmp_path, [exercise.id])}

    def run():
        return {
            name: verdicts_of(
                grade(
                    submission_dir=path,
                    exercises=[exercise],
                    config=COURSE_CONFIG,
                    sandbox=sandbox,
                )
            )
            for name, (path, _) in subs.items()
        }

    from_file = run()
    assert reading == []  # not one check drawn
    examples.forget()
    monkeypatch.setattr(committed, "_off", True)
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "another-cache"))
    drawn_now = run()
    assert reading  # drawn here (and by the forked drawer, grader.grading.examples.Drawer)
    assert from_file == drawn_now
    statuses = [e["status"] for r in from_file.values() for e in r["exercises"]]
    assert statuses == ["passed", "failed", "failed"]


@drawn_here
def test_a_vouched_spec_skips_the_reference_trial_and_an_edited_one_does_not(
    tmp_path, monkeypatch
):
    tried = []
    monkeypatch.setattr(reftrial, "try_references", lambda e, d: tried.append(e.id))
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "exercises" / "manual_gradient"
    shutil.copytree(EXERCISES / "manual_gradient", folder)
    specfile.load(folder / "exercise.yaml")
    assert tried == []
    spec = folder / "exercise.yaml"
    spec.write_text(spec.read_text() + "\n# edited\n")
    edited = specfile.load(spec)
    assert tried == ["manual_gradient"] and not committed.vouched(edited)


@drawn_here
def test_an_entry_is_found_only_for_its_spec_versions_seed_and_count(exercises, monkeypatch):
    monkeypatch.setattr(committed, "_off", False)
    ex = exercises["custom_sigmoid"]
    check, count, seed = _first_check(ex)
    assert committed.has(ex, check, count, seed) and committed.entry(ex, check, count, seed)
    edited = dataclasses.replace(ex, spec_hash="0" * 16)
    narrowed = dataclasses.replace(check, dtypes=check.dtypes[:1])
    for e, c, n, s in [
        (edited, check, count, seed),
        (ex, narrowed, count, seed),
        (ex, check, count + 1, seed),
        (ex, check, count, seed + 1),
    ]:
        assert not committed.has(e, c, n, s) and committed.entry(e, c, n, s) is None
    assert not committed.vouched(edited)
    monkeypatch.setattr(committed, "versions", lambda: "another torch or hypothesis")
    assert not committed.has(ex, check, count, seed) and not committed.vouched(ex)


class Hostile:
    def __reduce__(self):
        return (os.system, ("echo ran code from a file of examples > /dev/null",))


BIG = 64 * 2**20
"""The one object a forged file names 200 times (200 of it: 12.5 GiB)."""


def forged(how: str) -> bytes:
    """A pickle of {"x": [200 uses of one 64 MiB tensor]}: the tensor's persistent id memoized
    and loaded again each time ("copies": each load allocates), or the tensor itself memoized
    and named again ("references": one object, which a reader may copy per use). Packed, 64 KB."""
    pid = ("tensor", "uint8", bytes(BIG), (BIG,), (1,), 0, False)
    out = [pickle.PROTO + bytes([4]), pickle.EMPTY_DICT, pickle.SHORT_BINUNICODE + b"\x01x"]
    out += [pickle.EMPTY_LIST, pickle.MARK]
    if how == "copies":
        out += [pickle.dumps(pid, 4)[2:-1], pickle.BINPUT + bytes([200]), pickle.BINPERSID]
        out += [pickle.BINGET + bytes([200]), pickle.BINPERSID] * 199
    else:
        out += [pickle.dumps(pid, 4)[2:-1], pickle.BINPERSID, pickle.BINPUT + bytes([200])]
        out += [pickle.BINGET + bytes([200])] * 199
    out += [pickle.APPENDS, pickle.SETITEM, pickle.STOP]
    return zlib.compress(b"".join(out), 9)


@pytest.mark.parametrize("how", ["copies", "references"])
def test_a_file_naming_one_large_object_many_times_is_refused_within_its_budget(tmp_path, how):
    """What a file unpickles to is counted as the wire format counts a frame: each use of a
    memoized object again. The forged file (64 KB) is refused, naming itself, before its
    unpickling holds much more than the budget (128 MiB; without it: 12.5 GiB)."""
    import tracemalloc

    path = tmp_path / committed.FILE
    path.write_bytes(committed.MAGIC + b'{"format": 1}\n' + forged(how))
    assert path.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(pickle.UnpicklingError) as refused:
            committed.read(path, set(committed.allowed_now()))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(path) in str(refused.value) and "unpacks to more than" in str(refused.value)
    assert peak < 3 * committed.MAX_BYTES, peak  # the file's bytes, and the budget


@pytest.mark.parametrize("what", ["code", "bomb", "link", "garbage", "references"])
def test_a_file_that_is_not_plain_examples_is_never_read(
    tmp_path, reading, sandbox, monkeypatch, what, capfd
):
    """A class outside the allowed data, a zlib bomb, a link, garbage, one object named past
    the budget: the checks are drawn (and graded) as without the file, nothing in it runs, and
    the file is named."""
    exercise, path = course_copy(tmp_path)
    head = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    path.unlink()
    if what == "code":
        path.write_bytes(head + zlib.compress(pickle.dumps({k: Hostile() for k in ["x"]})))
    elif what == "bomb":
        path.write_bytes(head + zlib.compress(b"\0" * (committed.MAX_BYTES + 10)))
    elif what == "references":
        path.write_bytes(head + forged(what))
    elif what == "link":
        os.symlink(EXERCISES / "custom_sigmoid" / committed.FILE, path)
    else:
        path.write_bytes(head + b"not zlib at all")
    ran = []
    monkeypatch.setattr(os, "system", lambda *a: ran.append(a))
    check, count, seed = _first_check(exercise)
    assert committed.entry(exercise, check, count, seed) is None
    got = examples.examples(exercise, check, KINDS[check.kind], count, seed)
    assert reading == [(exercise.id, check.id)] and len(got.inputs) > 0 and ran == []
    assert f"{path} not read" in capfd.readouterr().err


@drawn_here
def test_batch_never_reads_them(exercises, monkeypatch):
    monkeypatch.setattr(committed, "_off", False)
    monkeypatch.setattr(examples, "_disk", True)
    ex = exercises["custom_sigmoid"]
    check, count, seed = _first_check(ex)
    assert committed.entry(ex, check, count, seed) is not None
    examples.memory_only()
    assert committed.entry(ex, check, count, seed) is None and not committed.has(
        ex, check, count, seed
    )

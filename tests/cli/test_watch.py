"""watch: grades everything once, then only what was saved."""

from __future__ import annotations

import os

from conftest import EXERCISES, ROOT

from grader.cli.watch import changed, snapshot, watch
from grader.loader import specfile


def test_snapshot_notices_a_save(tmp_path):
    exercises = specfile.discover(EXERCISES, root=ROOT)
    (tmp_path / "manual_gradient.py").write_text("x = 1\n")
    before = snapshot(tmp_path, exercises)
    assert changed(before, snapshot(tmp_path, exercises)) == []
    path = tmp_path / "manual_gradient.py"
    path.write_text("x = 22\n")
    os.utime(path, ns=(1, 1))
    assert changed(before, snapshot(tmp_path, exercises)) == ["manual_gradient"]


def test_watch_regrades_only_the_saved_exercise(tmp_path):
    exercises = specfile.discover(EXERCISES, root=ROOT)
    path = tmp_path / "manual_gradient.py"
    path.write_text("x = 1\n")
    calls = []

    def on_change(batch):
        calls.append([e.id for e in batch])
        if len(calls) == 1:
            path.write_text("x = 333\n")
            os.utime(path, ns=(5, 5))

    watch(
        directory=tmp_path,
        exercises=exercises,
        on_change=on_change,
        interval=0.01,
        stop=lambda: len(calls) >= 2,
    )
    assert calls[0] == [e.id for e in exercises]
    assert calls[1] == ["manual_gradient"]

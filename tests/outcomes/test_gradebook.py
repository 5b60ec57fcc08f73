"""The SQLite gradebook: runs are recorded, and a regrade names whose checks flipped and why."""

import sqlite3

import pytest
from classdata import ENV, klass, submission

from grader.common.errors import SpecError
from grader.loader import config as config_mod
from grader.outcomes import gradebook
from grader.report import regrade


def hashes(results, changed=()):
    return {r.submission: {"ex": "new" if r.submission in changed else "old"} for r in results}


def test_every_run_is_recorded_with_its_checks(tmp_path):
    db = tmp_path / "sub" / "gb.sqlite"
    first = gradebook.record(db, klass(), files=hashes(klass()), command="batch")
    second = gradebook.record(
        db, klass()[:2], files=hashes(klass()), command="batch", shard=(1, 2)
    )
    assert (first, second) == (1, 2)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT command, shard FROM runs ORDER BY id").fetchall() == [
            ("batch", None),
            ("batch", "1/2"),
        ]
        assert conn.execute("SELECT COUNT(*) FROM checks WHERE run = 1").fetchone() == (12,)
        assert conn.execute(
            "SELECT score FROM scores WHERE run = 1 AND submission = 'budi'"
        ).fetchone() == (2.0,)
    assert gradebook.changes(db, second) == []
    assert gradebook.previous_runs(db, second) == 1


def test_a_regrade_names_flipped_checks_and_the_changed_file(tmp_path):
    db = tmp_path / "gb.sqlite"
    gradebook.record(db, klass(), files=hashes(klass()), command="batch")
    fixed = [
        submission("budi", {}),
        submission("dewi", {"a": "failed", "b": "error"}),
        submission("eko", {"a": "failed"}),
    ]
    run = gradebook.record(db, fixed, files=hashes(fixed, changed={"budi"}), command="batch")
    changes = gradebook.changes(db, run)
    assert [c.submission for c in changes] == ["budi"]  # dewi unchanged, eko is new
    budi = changes[0]
    assert (budi.score_before, budi.score_after, budi.previous_run) == (2.0, 4.0, 1)
    assert [(f.exercise, f.check, f.before, f.after) for f in budi.flips] == [
        ("ex", "a", "failed", "passed")
    ]
    assert budi.causes == ["ex: the student's file was changed"]
    line = regrade.line(budi)
    assert "budi: 2/4 -> 4/4" in line and "ex.a failed -> passed" in line


def test_a_spec_or_seed_change_is_named_as_the_cause(tmp_path):
    db = tmp_path / "gb.sqlite"
    gradebook.record(db, klass(), files=hashes(klass()), command="batch")
    env = {**ENV, "seed": 8, "spec_hashes": {"ex": "bbbb"}}
    again = [submission("citra", {"a": "failed", "b": "failed"}, env=env)]
    run = gradebook.record(db, again, files=hashes(again), command="merge")
    (citra,) = gradebook.changes(db, run)
    assert [(f.check, f.before, f.after) for f in citra.flips] == [("h", "failed", "passed")]
    assert citra.causes == ["ex: the exercise spec changed", "seed 7 -> 8"]


def test_a_flip_with_nothing_changed_is_called_timing(tmp_path):
    db = tmp_path / "gb.sqlite"
    gradebook.record(db, [submission("ana", {})], files=hashes(klass()), command="batch")
    run = gradebook.record(
        db, [submission("ana", {"b": "timeout"})], files=hashes(klass()), command="batch"
    )
    (ana,) = gradebook.changes(db, run)
    assert ana.causes == [] and "timing" in regrade.line(ana)


def _config(tmp_path, text):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return config_mod.load(path)


def test_config_gradebook_is_a_path_relative_to_the_config_file(tmp_path):
    assert (
        _config(tmp_path, "gradebook: grades/gb.sqlite\n").gradebook
        == tmp_path / "grades" / "gb.sqlite"
    )
    assert _config(tmp_path, "gradebook: null\n").gradebook is None
    assert _config(tmp_path, "seed: 1\n").gradebook is None


@pytest.mark.parametrize(
    "value, words",
    [('""', "empty string"), ("3", "expected a file path"), ("grades", "is a directory")],
)
def test_config_gradebook_errors_name_line_and_key(tmp_path, value, words):
    (tmp_path / "grades").mkdir()
    with pytest.raises(SpecError, match=f"line 2, gradebook: .*{words}"):
        _config(tmp_path, f"seed: 1\ngradebook: {value}\n")

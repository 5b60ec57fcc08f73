"""Gradescope results.json per submission, checked against Gradescope's documented schema."""

import json

from classdata import gradescope_valid as _valid
from classdata import klass

from grader.report import gradescope


def test_one_file_per_submission_in_schema(tmp_path):
    gradescope.write(tmp_path, klass(), "en")
    folders = sorted(p.name for p in (tmp_path / "gradescope").iterdir())
    assert folders == ["ana", "budi", "citra", "dewi"]
    for name in folders:
        _valid(json.loads((tmp_path / "gradescope" / name / "results.json").read_text()))


def test_scores_status_output_and_hidden_visibility(tmp_path):
    gradescope.write(tmp_path, klass(), "en")
    doc = json.loads((tmp_path / "gradescope" / "citra" / "results.json").read_text())
    assert doc["score"] == 0
    tests = {t["number"]: t for t in doc["tests"]}
    assert tests["ex.a"]["status"] == "failed" and tests["ex.a"]["max_score"] == 2
    assert "a is wrong" in tests["ex.a"]["output"] and "hint for a" in tests["ex.a"]["output"]
    assert tests["ex.h"]["visibility"] == "after_published"
    assert tests["ex.a"]["visibility"] == "visible"
    ana = json.loads((tmp_path / "gradescope" / "ana" / "results.json").read_text())
    assert ana["score"] == 4 and all(t["output"] == "" for t in ana["tests"])


def test_rewriting_removes_files_of_an_earlier_run(tmp_path):
    gradescope.write(tmp_path, klass(), "en")
    gradescope.write(tmp_path, klass()[:1], "en")
    assert sorted(p.name for p in (tmp_path / "gradescope").iterdir()) == ["ana"]


def test_a_grading_seed_stays_out_of_what_gradescope_shows():
    from classdata import submission

    from grader.report import gradescope as gs

    r = submission("eka", {"a": "failed"})
    r.environment = {"grader": "1", "seed": 987654321, "seed_source": "grading_seed"}
    assert "987654321" not in json.dumps(gs.submission_dict(r, "en"))
    r.environment = {"grader": "1", "seed": 987654321, "seed_source": "seed"}
    assert "987654321" in json.dumps(gs.submission_dict(r, "en"))

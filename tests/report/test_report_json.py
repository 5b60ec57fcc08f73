"""The grader-result/1 document (shared/design.md section 5): fields, languages, round trip."""

from __future__ import annotations

import json

from classdata import ENV, submission

from grader.outcomes.results import CHECK_STATUSES, EXERCISE_STATUSES
from grader.report import jsonout
from grader.specs.model import Text


def test_contract_fields_and_types(tmp_path):
    result = submission("budi", {"a": "failed", "b": "error"})
    jsonout.write(tmp_path / "r.json", result, "en")
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert doc["format"] == "grader-result/1" and doc["submission"] == "budi"
    assert (doc["score"], doc["max_score"]) == (1.0, 4.0)  # h (hidden, batch mode) passed
    assert doc["environment"] == ENV and doc["language"] == "en"
    (ex,) = doc["exercises"]
    assert ex["status"] in EXERCISE_STATUSES and ex["score"] == 1 and ex["max_score"] == 4
    assert ex["bonus"] == {"score": 0, "max_score": 0}
    a = ex["checks"][0]
    assert a["status"] == "failed" and a["status"] in CHECK_STATUSES
    assert (a["points"], a["max_points"]) == (0.0, 2.0)
    assert a["message"].startswith("a is wrong") and a["counterexample"] == "x = tensor([4.5])"
    assert a["hint"] == "hint for a"
    assert [c["status"] for c in ex["checks"]] == ["failed", "error", "passed"]


def test_language_picks_the_text_and_keeps_non_ascii(tmp_path):
    result = submission("dewi", {"a": "failed"})
    result.exercises[0].checks[0].hint = Text(
        id="Gunakan rumus σ(x)·(1 − σ(x))", en="Use σ(x)·(1 − σ(x))"
    )
    jsonout.write(tmp_path / "r.json", result, "id")
    text = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert "σ(x)·(1 − σ(x))" in text  # written as UTF-8, not \u escapes
    doc = json.loads(text)
    assert doc["language"] == "id"
    assert doc["exercises"][0]["checks"][0]["hint"] == "Gunakan rumus σ(x)·(1 − σ(x))"
    assert doc["exercises"][0]["title"] == "Exercise | one (id)"
    assert doc["exercises"][0]["checks"][1]["message"] is None  # passed: no message


def test_a_named_mistake_is_written_in_the_language_and_read_back_by_batch(tmp_path):
    from grader.batch import files

    result = submission("eko", {"a": "failed", "b": "failed"})
    a = result.exercises[0].checks[0]
    a.mistake = "grad_not_reset"
    a.mistake_title = Text(id="gradien lama tidak di-reset", en="the old gradient was not reset")
    jsonout.write(tmp_path / "r.json", result, "id")
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    first, second = doc["exercises"][0]["checks"][:2]
    assert first["mistake"] == {"id": "grad_not_reset", "title": "gradien lama tidak di-reset"}
    assert second["mistake"] is None  # no mistake named: the key is there all the same
    back = files._check(first)
    assert (back.mistake, back.mistake_title.id) == ("grad_not_reset", first["mistake"]["title"])
    del second["mistake"]  # a results.json written before the field existed
    assert files._check(second).mistake is None

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

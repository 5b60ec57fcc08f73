"""A check that observes method (a forbidden API, a count of forward passes or of a backward's
work) costs a point only for a rule the spec states: one naming no rule is a spec error at its
line (grader.loader.specfile.load_rules)."""

from __future__ import annotations

import pytest
from conftest import EXERCISES

from grader.common.errors import SpecError
from grader.loader import specfile


def _load(tmp_path, name: str, text: str):
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / "exercise.yaml").write_text(text)
    return specfile.load(folder / "exercise.yaml", root=tmp_path)


def _line(text: str, fragment: str, after: str) -> int:
    start = text.index(after)
    return text[:start].count("\n") + text[start:].split("\n").index(fragment) + 1


def test_a_forbidden_api_check_without_a_rule_is_refused_at_its_line(tmp_path):
    text = (EXERCISES / "manual_sgd" / "exercise.yaml").read_text()
    rule = '  no_optim:\n    id: "torch.optim dilarang."\n    en: "torch.optim is forbidden."\n'
    check = "  - id: no_optim\n"
    assert rule in text and "    rules: [no_optim]\n" in text
    text = text.replace(rule, "").replace("    rules: [no_optim]\n", "")
    with pytest.raises(SpecError) as err:
        _load(tmp_path, "manual_sgd", text)
    assert "observes forbidden APIs, a rule the student must be told" in err.value.message
    assert err.value.file == "manual_sgd/exercise.yaml"
    assert err.value.line == _line(text, "    kind: forbidden_api", check)


def test_a_count_of_forward_passes_without_a_rule_is_refused_at_its_line(tmp_path):
    text = (EXERCISES / "retain_graph" / "exercise.yaml").read_text()
    rule = text[text.index("  one_forward:\n") : text.index("  retain_first:\n")]
    assert "    rules: [one_forward]\n" in text
    text = text.replace(rule, "").replace("    rules: [one_forward]\n", "")
    with pytest.raises(SpecError) as err:
        _load(tmp_path, "retain_graph", text)
    assert "observes forward_calls" in err.value.message
    assert err.value.line == _line(
        text, "    observe: {model: [forward_calls]}", "  - id: two_loss_one_forward\n"
    )


def test_the_course_states_a_rule_for_every_check_of_method(exercises):
    for exercise in exercises.values():
        for check in exercise.checks:
            if specfile._method_observed(check):
                assert check.rules, f"{exercise.id}/{check.id}"

"""A spec as students get it: hidden checks cut out with their comment, the rest untouched."""

import yaml

from grader import publicspec

SPEC = """\
# Latihan: an exercise
id: ex
checks:
  - id: a
    points: 1
  # wide inputs, up to 1e4
  - id: secret
    hidden: true
    args:
      x: {low: -10000, high: 10000}
    hint:
      en: |
        a block
        of text
  # b: the last visible check
  - id: b
    points: 2
"""


def test_hidden_checks_are_cut_with_the_comment_above_them():
    text, removed = publicspec.public(SPEC)
    assert removed == 1
    assert "secret" not in text and "1e4" not in text and "of text" not in text
    assert text.startswith("# Latihan: an exercise\n")  # the rest as the teacher wrote it
    assert "  # b: the last visible check\n  - id: b\n" in text
    data = yaml.safe_load(text)
    assert [c["id"] for c in data["checks"]] == ["a", "b"] and data["hidden_checks"] == 1


def test_a_spec_without_hidden_checks_is_unchanged():
    plain = SPEC.replace("    hidden: true\n", "")
    assert publicspec.public(plain) == (plain, 0)


def test_flow_style_and_an_earlier_count_fall_back_to_plain_yaml():
    flow = "id: ex\nchecks: [{id: a, points: 1}, {id: s, hidden: true, points: 2}]\n"
    text, removed = publicspec.public(flow)
    assert removed == 1 and yaml.safe_load(text) == {
        "id": "ex", "checks": [{"id": "a", "points": 1}], "hidden_checks": 1}
    counted = SPEC + "hidden_checks: 2\n"
    text, removed = publicspec.public(counted)
    assert removed == 1 and yaml.safe_load(text)["hidden_checks"] == 3 and "secret" not in text

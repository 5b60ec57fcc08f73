"""A spec as students get it: hidden checks cut out with their comment, the rest untouched."""

import yaml

from grader.loader import publicspec

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
        "id": "ex",
        "checks": [{"id": "a", "points": 1}],
        "hidden_checks": 1,
    }
    counted = SPEC + "hidden_checks: 2\n"
    text, removed = publicspec.public(counted)
    assert removed == 1 and yaml.safe_load(text)["hidden_checks"] == 3 and "secret" not in text


REFERENCED = """\
id: ex
references:
  f:
    args: [x]
    expr: torch.sin(x) * x
checks:
  - id: value
    expect: {value_of: f}
    points: 1
  # a scenario whose reference is the answer
  - id: scene
    reference: |
      def g(x):
          return x * 2
    setup: |
      def setup(x):
          return {"x": x}
    points: 1
  - id: secret
    hidden: true
    points: 1
"""


def test_a_release_spec_holds_no_reference_code_and_names_its_record():
    text, removed = publicspec.public(REFERENCED, recorded="recorded.pickle")
    data = yaml.safe_load(text)
    assert removed == 1 and data["hidden_checks"] == 1
    assert data["recorded"] == "recorded.pickle" and "references" not in data
    assert [c["id"] for c in data["checks"]] == ["value", "scene"]
    assert "reference" not in data["checks"][1] and "setup" in data["checks"][1]
    assert "torch.sin" not in text and "x * 2" not in text
    assert "# a scenario whose reference is the answer" in text  # the rest as written


def test_a_spec_without_hidden_checks_still_loses_its_references_in_a_release():
    spec = REFERENCED.replace("    hidden: true\n", "")
    text, removed = publicspec.public(spec, recorded="recorded.pickle")
    data = yaml.safe_load(text)
    assert removed == 0 and "hidden_checks" not in data and "references" not in data
    assert publicspec.public(spec) == (spec, 0)  # no release: untouched

"""YAML loading with locations: errors name the file, the line and the key."""

from __future__ import annotations

import pytest

from grader.common import yamlfile
from grader.common.errors import SpecError


def load(tmp_path, text):
    path = tmp_path / "x.yaml"
    path.write_text(text)
    return yamlfile.load(path, "x.yaml")


def test_lines_and_paths(tmp_path):
    node = load(tmp_path, "a: 1\nb:\n  c: [1, 2]\n  d: tight\n")
    assert node.where("b") == 2
    assert node["b"].where("d") == 4
    with pytest.raises(SpecError) as err:
        node["b"].get_typed("d", float)
    assert str(err.value) == "x.yaml, line 4, b.d: expected a number, got 'tight'"


def test_missing_key_says_what_to_add(tmp_path):
    node = load(tmp_path, "a: 1\n")
    with pytest.raises(SpecError, match=r"x.yaml, line 1, b: missing; add `b:` here"):
        node.get_typed("b", int)


def test_booleans_are_not_numbers(tmp_path):
    node = load(tmp_path, "a: true\n")
    with pytest.raises(SpecError, match="expected a number, got True"):
        node.get_typed("a", float)


def test_duplicate_key(tmp_path):
    with pytest.raises(SpecError, match="line 2, a: duplicate key"):
        load(tmp_path, "a: 1\na: 2\n")


def test_invalid_yaml_names_the_line(tmp_path):
    with pytest.raises(SpecError, match=r"x.yaml, line 2: invalid YAML"):
        load(tmp_path, "a: [1, 2\nb: : 3\n")


def test_top_level_must_be_a_mapping(tmp_path):
    with pytest.raises(SpecError, match="top level must be a mapping"):
        load(tmp_path, "- 1\n- 2\n")


def test_unknown_keys_list_the_known_ones(tmp_path):
    node = load(tmp_path, "a: 1\nzzz: 2\n")
    with pytest.raises(SpecError, match="line 2, zzz: unknown key; expected one of: a, b"):
        node.reject_unknown({"a", "b"})


def _same(a, b):
    """Equal values, types, files, lines and paths, all the way down."""
    assert type(a) is type(b) and a == b
    for attr in ("file", "line", "lines", "path"):
        assert getattr(a, attr, None) == getattr(b, attr, None), attr
    if isinstance(a, dict):
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, list):
        for x, y in zip(a, b):
            _same(x, y)


@pytest.mark.skipif(yamlfile._CLoader is None, reason="PyYAML without libyaml")
def test_libyaml_reads_every_course_spec_as_the_python_loader_does(monkeypatch):
    from conftest import EXERCISES

    paths = sorted(EXERCISES.glob("*/exercise.yaml"))
    fast = [yamlfile.load(p) for p in paths]
    monkeypatch.setattr(yamlfile, "_CLoader", None)
    for p, node in zip(paths, fast):
        _same(node, yamlfile.load(p))


@pytest.mark.parametrize("text", ["a: [1, 2\n", "a: 1\n  b: 2\n", "a: 1\na: 2\n", "- 1\n", ""])
def test_errors_read_the_same_with_and_without_libyaml(tmp_path, monkeypatch, text):
    with pytest.raises(SpecError) as fast:
        load(tmp_path, text)
    monkeypatch.setattr(yamlfile, "_CLoader", None)
    with pytest.raises(SpecError) as slow:
        load(tmp_path, text)
    assert str(fast.value) == str(slow.value)


def _spec_with_an_unclosed_quote(quote: str, rest: str) -> str:
    """A spec-like file whose line 4 opens a quote it never closes, `rest` after it."""
    return (
        "format: 1\n"
        "id: demo\n"
        "title:\n"
        f"  id: {quote}Judul tanpa tanda kutip penutup\n"
        f"  en: {quote}A title\n" + rest
    )


@pytest.mark.parametrize("quote", ['"', "'"])
def test_an_unclosed_quote_is_named_where_it_opens(tmp_path, quote):
    # Closed by the next quote further down: PyYAML notices at that line (5); it starts at 4.
    with pytest.raises(SpecError) as err:
        load(tmp_path, _spec_with_an_unclosed_quote(quote, "dims: {N: [1, 5]}\n"))
    assert str(err.value).startswith("x.yaml, line 4: invalid YAML:"), err.value
    assert "at line 5" in str(err.value) and "quote left open" in str(err.value)
    # Never closed: noticed at the end of the file, many lines further down.
    filler = "".join(f"k{i}: {i}\n" for i in range(11))
    text = _spec_with_an_unclosed_quote(quote, filler).replace(f"en: {quote}A title", "en: x")
    with pytest.raises(SpecError) as err:
        load(tmp_path, text)
    assert str(err.value).startswith("x.yaml, line 4: invalid YAML:"), err.value
    assert "quoted scalar that starts here" in str(err.value)


def test_a_problem_inside_a_block_mapping_keeps_its_own_line(tmp_path):
    with pytest.raises(SpecError, match=r"x.yaml, line 4: invalid YAML"):
        load(tmp_path, 'a: 1\nb:\n  c: "two\n d: 3\ne: 4\n'.replace('"two', "two"))
    with pytest.raises(SpecError, match=r"x.yaml, line 4: invalid YAML: mapping values"):
        load(tmp_path, 'a: "one\n  two"\nb: 1\n d: 2\n')

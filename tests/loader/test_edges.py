"""A check's `edges:` (grader.loader.edges): the shipped ones load as Edge data; a broken one is
reported by file, line and key, with the fix."""

from __future__ import annotations

import pytest
from conftest import EXERCISES

from grader.common.errors import SpecError
from grader.loader import specfile
from grader.specs.model import Edge

GOOD = (EXERCISES / "detach_tricks" / "exercise.yaml").read_text()
EDGE = "      - {x: [[0.5, 1.5, 2.5], [-0.5, -1.5, -2.5]]}\n"


def load_text(tmp_path, text):
    folder = tmp_path / "detach_tricks"
    folder.mkdir(exist_ok=True)
    (folder / "exercise.yaml").write_text(text)
    return specfile.load(folder / "exercise.yaml", root=tmp_path)


def test_shipped_edges_load_as_data(tmp_path):
    ex = load_text(tmp_path, GOOD)
    check = next(c for c in ex.checks if c.id == "ste_forward")
    assert check.edges == (Edge({"x": [[0.5, 1.5, 2.5], [-0.5, -1.5, -2.5]]}),)
    assert next(c for c in ex.checks if c.id == "ema_update").edges == ()


@pytest.mark.parametrize(
    "edge, key, message",
    [
        ("{x: [[0.5, 1.5], [2.5]]}", "x", "not rectangular"),
        ("{x: [1e-40]}", "x", "write the number with a dot and a signed exponent"),
        ("{x: [9.0]}", "x", "outside the argument's range [-4, 4]"),
        ("{y: [1.0]}", "y", "unknown key; expected one of: dtype, x"),
        ("{x: [[[[1.0]]]]}", "x", "`shape: any` draws 0 to 3 dims"),
        ("{x: [1.0], dtype: float32}", "dtype", "not one of this check's dtypes (float64)"),
        ("{x: []}", "x", "only a `shape: any` argument with `empty: true`"),
        ("[1.0]", None, "expected a mapping of argument names to values"),
    ],
)
def test_broken_edge_names_file_line_and_key(tmp_path, edge, key, message):
    text = GOOD.replace(EDGE, f"      - {edge}\n")
    assert text != GOOD
    with pytest.raises(SpecError) as err:
        load_text(tmp_path, text)
    e = err.value
    assert e.file == "detach_tricks/exercise.yaml"
    assert e.line == text[: text.index(f"- {edge}")].count("\n") + 1
    assert e.key == "checks[0].edges[0]" + (f".{key}" if key else "")
    assert message in e.message


def test_named_dims_and_like_arguments_are_checked(tmp_path):
    old = "    edges:  # ties at .5, as in ste_forward\n      - {x: [[0.5, 1.5, 2.5], [-0.5, -1.5, -3.5]]}\n"
    assert old in GOOD
    wide = GOOD.replace(old, "    edges:\n      - {x: [[0.5, 1.5, 2.5, 3.5, 0.5]]}\n")
    with pytest.raises(SpecError, match=r"D = 5 is outside its range \[1, 4\] in `dims`"):
        load_text(tmp_path, wide)
    like = GOOD.replace(old, "    edges:\n      - {g: [[0.5, 1.5]]}\n")
    with pytest.raises(SpecError, match=r"give x's value in this edge too"):
        load_text(tmp_path, like)
    mismatch = GOOD.replace(old, "    edges:\n      - {x: [[0.5, 1.5]], g: [[0.5]]}\n")
    with pytest.raises(SpecError, match=r"shape \[1, 1\] differs from x's \[1, 2\]"):
        load_text(tmp_path, mismatch)

"""graph_tracking end to end: the key, every variant and every mutant, with their messages; and
the one reading of backward_nodes the instructions state (each class name once)."""

from __future__ import annotations

import ast
import dataclasses
import json
import shutil

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, by_id

from grader.grading.grade import grade_exercise
from grader.loader import specfile

ID = "graph_tracking"
VARIANTS = sorted((SOLUTIONS / "variants" / ID).glob("*.py"))
MUTANTS = sorted((SOLUTIONS / "mutants" / ID).glob("*.py"))

# mutant file stem -> (a check that must fail, words its English message must contain)
EXPECTED = {
    "anomaly_left_on": ("backward_nodes", "did not restore"),
    "clone_no_detach": ("make_tracked_from_tracked", "is_leaf = False"),
    # a * c * a: the leaf a is reached along two paths, so counting paths gives 3, not 2
    "counts_paths": ("count_leaves", "result.value = 3; expected 2"),
    # two leaves that hold equal values (an edge, drawn under every seed) are counted once
    "leaves_by_value": ("count_leaves", "result.value = 1; expected 2"),
    "marks_caller": ("make_tracked", "x.requires_grad = True"),
    "names_per_node": ("backward_nodes", "holds each item exactly once (no duplicates)"),
    "no_grad_chain": ("make_tracked", "requires_grad = False"),
    # (a.sum() * c) + c: one level below out.grad_fn never reaches SumBackward0
    "one_level": ("backward_nodes", "Missing: 'SumBackward0'"),
    "skips_accumulate": ("backward_nodes", "Missing: 'AccumulateGrad'"),
    "tensor_from_list": ("make_tracked", "dtype torch.float32"),
    "tracks_caller_out": ("count_leaves", "requires_grad of the caller's `out`"),
    # a * c * a (the edge) has no AddBackward0
    "trivial_constant": ("backward_nodes", "Extra: 'AddBackward0'"),
    "trivial_empty": ("backward_nodes", "result = []; expected ["),
}
SETUP = "def setup(a, c, k1, k2, k3, track):"
"""The first line of the graph's setup, shown under a failing input of the graph checks."""


def _grade(sandbox, exercise, path, config, tmp_path):
    sub = tmp_path / "submission"
    sub.mkdir(exist_ok=True)
    shutil.copyfile(path, sub / exercise.file)
    return grade_exercise(
        exercise=exercise, submission_dir=sub, config=config, sandbox=sandbox, include_hidden=True
    )


def _only(exercises, check_id):
    full = exercises[ID]
    return dataclasses.replace(full, checks=tuple(c for c in full.checks if c.id == check_id))


def test_every_mutant_has_an_expectation():
    assert {p.stem for p in MUTANTS} == set(EXPECTED)
    assert len(VARIANTS) >= 2


def test_answer_key_gets_full_marks(grade_files):
    ex = by_id(grade_files({"graph_tracking.py": SOLUTIONS / "graph_tracking.py"}, ids=[ID]))[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_variant_gets_full_marks(grade_files, path):
    ex = by_id(grade_files({"graph_tracking.py": path}, ids=[ID]))[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_mutant_fails_its_check_with_a_message(sandbox, exercises, fast_config, tmp_path, path):
    # Only the check that must catch this mutant runs here; `grader validate` runs them all.
    check_id, words = EXPECTED[path.stem]
    ex = _grade(sandbox, _only(exercises, check_id), path, fast_config, tmp_path)
    (row,) = ex.checks
    assert row.status == "failed", (row.status, row.message)
    assert words in row.message.en, row.message.en
    assert row.message.id and row.message.id != row.message.en


def test_names_once_per_node_is_told_which_reading_is_expected_and_how_out_was_built(
    sandbox, exercises, fast_config, tmp_path
):
    """The student's report: `result has 3 item(s), expected 2 elements` and a hint to recurse,
    with neither list nor the graph's setup. Now both lists, the repeated name, the reading
    expected, and the setup that built out with the call, in both languages."""
    path = SOLUTIONS / "mutants" / ID / "names_per_node.py"
    ex = _grade(sandbox, _only(exercises, "backward_nodes"), path, fast_config, tmp_path)
    (row,) = ex.checks
    en, id_ = row.message.en, row.message.id
    assert "item(s)" not in en and "elemen" not in id_
    assert "backward_nodes: result = ['AccumulateGrad', " in en and "; expected [" in en
    assert "appears 2 times; expected once" in en
    assert "each item exactly once (no duplicates)" in en
    assert "backward_nodes ran on out, which this check's setup built" in en
    assert "muncul 2 kali, seharusnya 1 kali" in id_ and "tanpa duplikat" in id_
    assert "yang dibangun setup pemeriksaan ini" in id_
    lines = row.counterexample.splitlines()
    assert lines[0].startswith("a = tensor(") and SETUP in lines
    assert lines[-2:] == ["out = setup(a, c, k1, k2, k3, track)['out']", "backward_nodes(out)"]
    # the check's hint names it too; the default feedback level keeps it back (held, not lost)
    assert row.hint is None and row.held_hint is not None
    assert "set" in row.held_hint.en and "himpunan" in row.held_hint.id


def _docstring(function: str) -> str:
    tree = ast.parse((EXERCISES / ID / f"{ID}.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function)
    return ast.get_docstring(node) or ""


def test_the_starter_and_the_spec_say_each_name_once_in_both_languages():
    doc = _docstring("backward_nodes")
    assert "setiap nama tepat sekali (tanpa duplikat)" in doc
    assert "each name exactly once (no duplicates)" in doc
    spec = specfile.load(EXERCISES / ID / "exercise.yaml")
    assert "setiap nama tepat sekali" in spec.instructions.id
    assert "each name exactly once" in spec.instructions.en
    check = next(c for c in spec.checks if c.id == "backward_nodes")
    assert "setiap nama sekali" in check.title.id and "each name once" in check.title.en
    # The notebook starter is the same text (python -m grader.submissions.notebook).
    cells = json.loads((ROOT / "notebooks" / f"{ID}.ipynb").read_text(encoding="utf-8"))["cells"]
    assert any("each name exactly once (no duplicates)" in "".join(c["source"]) for c in cells)


def test_the_reference_keeps_each_name_once():
    """What the instructions say is what the reference computes."""
    import torch

    spec = specfile.load(EXERCISES / ID / "exercise.yaml")
    check = next(c for c in spec.checks if c.id == "backward_nodes")
    scope: dict = {"torch": torch}
    exec(check.options["reference"], scope)
    a = torch.tensor([2.0], requires_grad=True)
    y = a * 2 + 1
    assert scope["backward_nodes"](y * y) == ["AccumulateGrad", "AddBackward0", "MulBackward0"]

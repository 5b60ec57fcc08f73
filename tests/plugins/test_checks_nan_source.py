"""The recipe table, the anomaly probe, and the nan_source / anomaly_restored kinds."""

from __future__ import annotations

import pytest
import torch
from conftest import EXERCISES, find_check, plugin
from hypothesis import given, settings
from inprocess import probe

from grader.checks import KINDS
from grader.checks.base import Judging
from grader.common.errors import SpecError
from grader.loader import specfile

recipes = plugin("nan_debugging", "recipes")
first_nan_node = plugin("nan_debugging", "teacher").first_nan_node
BREAKERS = plugin("nan_debugging", "nan_source").BREAKERS
recipe_inputs = plugin("nan_debugging", "nan_source").recipe_inputs

EXERCISE = specfile.load(EXERCISES / "nan_debugging" / "exercise.yaml")
POISONED = find_check(EXERCISE, "find_nan_source_poisoned")
RESTORES = find_check(EXERCISE, "find_nan_source_restores")


def t(*values):
    return torch.tensor(values, dtype=torch.float64)


# --- the recipe table -------------------------------------------------------------------------


def test_build_follows_the_recipe():
    x, y = t(0.5, 2.0), t(1.5, 0.25)
    fn = recipes.build(["mul", "sqrt", "log", "sum"])
    torch.testing.assert_close(fn(x, y), torch.log(torch.sqrt(x * y)).sum(), rtol=1e-12, atol=0)
    assert recipes.describe(["mul", "sqrt", "log", "sum"]) == "sum(log(sqrt(x * y)))"
    assert recipes.describe(["add", "square", "reciprocal", "mean"]) == "mean(1 / ((x + y) ** 2))"


@pytest.mark.parametrize(
    "bad",
    [["sqrt", "sum"], ["mul", "sum", "sum"], ["mul"], ["mul", "eval", "sum"], "mul,sum", [1, 2]],
)
def test_recipes_outside_the_table_are_refused(bad):
    with pytest.raises(recipes.RecipeError):
        recipes.build(bad)


@pytest.mark.parametrize(
    "recipe, x, y, node",
    [
        # sqrt(0) has an infinite derivative; the NaN appears one node later, as inf · 0.
        (["mul", "sqrt", "sum"], t(0.0, 1.0), t(1.0, 2.0), "MulBackward0"),
        # A NaN in forward that backward never multiplies: log's backward is g / x, finite at -1.
        (["mul", "log", "sum"], t(-1.0), t(1.0), None),
        # The NaN from sqrt(-1) meets exp's backward (g · exp(NaN)) first.
        (["mul", "sqrt", "exp", "sum"], t(-1.0), t(1.0), "ExpBackward0"),
        (["add", "sin", "mean"], t(0.5), t(1.0), None),
    ],
)
def test_first_nan_node_is_what_anomaly_detection_names(recipe, x, y, node):
    assert first_nan_node(recipe, [x, y]) == node


@pytest.mark.parametrize("initial", [False, True])
def test_first_nan_node_leaves_the_global_setting_alone(initial):
    torch.set_anomaly_enabled(initial, True)
    try:
        first_nan_node(["mul", "sqrt", "sum"], [t(0.0), t(1.0)])
        assert torch.is_anomaly_enabled() is initial
    finally:
        torch.set_anomaly_enabled(False, True)


@settings(max_examples=40, deadline=None, database=None)
@given(recipe_inputs(EXERCISE, POISONED))
def test_poisoned_recipes_put_a_breaker_on_a_poisoned_point(inputs):
    recipe = inputs["recipe"]
    recipes.validate(recipe)
    assert recipe[1] in BREAKERS
    combined = recipes.BINARY[recipe[0]][0](inputs["x"], inputs["y"])
    if recipe[0] == "pow":  # 0 ** y == 0, and a negative base gives NaN
        assert bool((inputs["x"] <= 0).any())
    else:
        assert bool((combined <= 0).any() | combined.isnan().any())


# --- the probe, in this process ---------------------------------------------------------------


def _inputs(recipe=("mul", "sqrt", "sum")):
    return {"x": t(0.0, 1.0), "y": t(1.0, 2.0), "recipe": list(recipe)}


def test_probe_builds_the_function_and_reports_the_setting_left_behind():
    seen = []

    def find_nan_source(fn, *inputs):
        seen.append((fn(*inputs).item(), [x.requires_grad for x in inputs]))
        torch.autograd.set_detect_anomaly(True)
        return "Whatever"

    reply, values = probe(RESTORES, _inputs(), find_nan_source=find_nan_source)
    assert reply["ok"] is True
    assert [flags for _, flags in seen] == [[True, True]] * 2
    assert [value for value, _ in seen] == pytest.approx([2**0.5] * 2, rel=1e-12)
    assert [(r["initial"], r["after"], r["result"]) for r in values["data"]] == [
        (False, True, "Whatever"),
        (True, True, "Whatever"),
    ]
    # Whatever the tool did, the worker goes on with anomaly detection off.
    assert torch.is_anomaly_enabled() is False


def test_probe_reports_a_failing_tool_as_the_students_error():
    def find_nan_source(fn, *inputs):
        torch.autograd.set_detect_anomaly(True)
        raise ValueError("no idea")

    reply, _ = probe(RESTORES, _inputs(), find_nan_source=find_nan_source)
    assert reply["ok"] is False and reply["phase"] == "call"
    assert reply["error"]["type"] == "ValueError"
    assert torch.is_anomaly_enabled() is False


# --- judging ----------------------------------------------------------------------------------


def _judge(check, inputs, **functions):
    reply, values = probe(check, inputs, **functions)
    assert reply["ok"] is True, reply
    return KINDS[check.kind].judge(Judging(EXERCISE, check, inputs), reply, values)


def test_nan_source_accepts_the_truth_and_explains_a_wrong_name():
    assert _judge(POISONED, _inputs(), find_nan_source=lambda fn, *a: "MulBackward0") is None
    verdict = _judge(POISONED, _inputs(), find_nan_source=lambda fn, *a: "SqrtBackward0")
    assert verdict.status == "failed"
    assert "'SqrtBackward0'" in verdict.message.en and "'MulBackward0'" in verdict.message.en
    assert "sum(sqrt(x * y))" in verdict.message.en


@pytest.mark.parametrize(
    "answer, word",
    [
        (None, "returned None"),
        ("", "'' (an empty string)"),
        (0, "expected a str"),
    ],
)
def test_nan_source_messages(answer, word):
    clean = {"x": t(1.0), "y": t(1.0), "recipe": ["add", "sin", "sum"]}
    inputs = clean if answer == "" else _inputs()
    verdict = _judge(POISONED, inputs, find_nan_source=lambda fn, *a: answer)
    assert verdict.status == "failed" and word in verdict.message.en, verdict.message.en


def test_a_name_where_there_is_no_nan_is_wrong():
    clean = {"x": t(1.0), "y": t(1.0), "recipe": ["add", "sin", "sum"]}
    verdict = _judge(POISONED, clean, find_nan_source=lambda fn, *a: "SinBackward0")
    assert "the answer is None" in verdict.message.en


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_anomaly_restored_catches_a_tool_that_switches_it_off():
    def forced_off(fn, *inputs):
        torch.autograd.set_detect_anomaly(False)
        return None

    def context_manager(fn, *inputs):
        with torch.autograd.detect_anomaly():
            fn(*inputs)
        return None

    verdict = _judge(RESTORES, _inputs(["add", "sin", "sum"]), find_nan_source=forced_off)
    assert verdict.status == "failed"
    assert "was on; afterwards it was off" in verdict.message.en
    assert (
        _judge(RESTORES, _inputs(["add", "sin", "sum"]), find_nan_source=context_manager) is None
    )


# --- spec validation --------------------------------------------------------------------------


def _spec_with(tmp_path, old, new):
    text = (EXERCISES / "nan_debugging" / "exercise.yaml").read_text()
    assert old in text
    folder = tmp_path / "nan_debugging"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(text.replace(old, new, 1))
    return specfile.load(folder / "exercise.yaml", root=tmp_path)


def test_unknown_recipe_family_is_a_spec_error(tmp_path):
    with pytest.raises(SpecError) as err:
        _spec_with(tmp_path, "recipes: clean", "recipes: dirty")
    assert err.value.key.endswith(".recipes") and "poisoned, clean" in err.value.message
    assert err.value.line is not None

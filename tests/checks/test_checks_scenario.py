"""The scenario kind (grader.checks.scenario) and its probe (grader.sandbox.probes.scenario)."""

from __future__ import annotations

import textwrap

import pytest
import torch
from conftest import EXERCISES, ROOT, find_check
from inprocess import judge, probe

from grader.checks import KINDS
from grader.checks.base import Judging
from grader.common.errors import SpecError
from grader.loader import specfile
from grader.sandbox.probes import scenario as scenario_probe
from grader.specs import model as spec
from grader.specs.refs import SpecBug

SGD = specfile.load(EXERCISES / "manual_sgd" / "exercise.yaml")
FN = specfile.load(EXERCISES / "multi_input_function" / "exercise.yaml")


def sgd_inputs(pick=0.9):
    w1, w2 = torch.tensor([1.0, -2.0], dtype=torch.float64), torch.ones(2, 3, dtype=torch.float64)
    return {
        "w1": w1,
        "w2": w2,
        "g1": torch.tensor([0.5, 0.5], dtype=torch.float64),
        "g2": torch.full((2, 3), 2.0, dtype=torch.float64),
        "lr": 0.1,
        "pick": pick,
    }


def sgd_key(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
    for p in params:
        p.grad = None


def test_the_reference_run_of_the_spec_passes():
    check = find_check(SGD, "sgd_update")
    assert judge(SGD, check, sgd_inputs(), sgd_step=sgd_key) is None


def test_a_rebound_parameter_names_the_observation_that_differs():
    def rebinds(params, lr):
        for p in params:
            p = p.detach() - lr * p.grad

    verdict = judge(SGD, find_check(SGD, "sgd_update"), sgd_inputs(), sgd_step=rebinds)
    assert verdict.status == "failed"
    assert "params[0].value" in verdict.message.en


def test_none_and_zero_gradients_are_equal_only_where_the_spec_says_so():
    def zeroes(params, lr):
        sgd_key(params, lr)
        for p in params:
            p.grad = torch.zeros_like(p)

    assert judge(SGD, find_check(SGD, "sgd_zero_grad"), sgd_inputs(), sgd_step=zeroes) is None
    kept = judge(
        SGD, find_check(SGD, "sgd_zero_grad"), sgd_inputs(), sgd_step=lambda params, lr: None
    )
    assert kept.status == "failed" and "params[0]" in kept.message.en


def confirmed(exercise, check, inputs, **functions):
    """The verdict once the kind's candidates at this example are taken as confirmed (as
    grader.grading.confirm does over several failing examples)."""
    reply, values = probe(check, inputs, **functions)
    kind = KINDS[check.kind]
    names = kind.candidates(Judging(exercise, check, inputs), reply, values)
    return kind.judge(Judging(exercise, check, inputs, confirmed=frozenset(names)), reply, values)


def test_a_gradient_left_after_the_step_is_named_not_reset():
    def steps_only(params, lr):
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p -= lr * p.grad

    check = find_check(SGD, "sgd_zero_grad")
    assert judge(SGD, check, sgd_inputs(), sgd_step=steps_only).mistake is None  # unconfirmed
    verdict = confirmed(SGD, check, sgd_inputs(), sgd_step=steps_only)
    assert verdict.mistake.id == "grad_not_reset"
    assert "plus the one it held before the call" in verdict.message.en
    assert "params[0]" in verdict.message.en and "di-reset" in verdict.message.id

    def halves(params, lr):  # a wrong gradient, but not the old one kept
        sgd_key(params, lr)
        for p in params:
            p.grad = torch.full_like(p, 0.25)

    other = confirmed(SGD, check, sgd_inputs(), sgd_step=halves)
    assert other.status == "failed" and other.mistake is None
    assert "held before the call" not in other.message.en


def test_an_old_gradient_accumulated_into_is_named_not_reset():
    acc = specfile.load(EXERCISES / "grad_accumulation" / "exercise.yaml")
    check = find_check(acc, "uneven_chunks_old_grads")
    g = torch.Generator().manual_seed(3)

    def draw(*shape):
        return torch.rand(*shape, generator=g, dtype=torch.float64) * 2 - 1

    inputs = {
        "W1": draw(3, 2),
        "b1": draw(3),
        "W2": draw(2, 3),
        "b2": draw(2),
        "x": draw(5, 2),
        "target": draw(5, 2),
        "old": draw(2, 3),
        "k": 0.5,
        "pick": 0.0,
    }

    def accumulate(model, x, target, chunk, reset):
        if reset:
            model.zero_grad()
        for xb, tb in zip(x.split(chunk), target.split(chunk)):
            loss = torch.nn.functional.mse_loss(model(xb), tb, reduction="sum")
            (loss / target.numel()).backward()

    assert judge(acc, check, inputs, accumulate_grads=lambda *a: accumulate(*a, True)) is None
    kept = confirmed(acc, check, inputs, accumulate_grads=lambda *a: accumulate(*a, False))
    assert kept.mistake.id == "grad_not_reset" and "model.2.weight" in kept.message.en


def test_a_flag_that_differs_is_reported_with_both_values():
    check = find_check(SGD, "clamp_in_place")
    inputs = {
        "w": torch.tensor([[3.0, -0.2]], dtype=torch.float64),
        "g": torch.zeros(1, 2, dtype=torch.float64),
        "limit": 1.0,
    }
    verdict = judge(
        SGD, check, inputs, clamp_weights_=lambda w, limit: w.detach().clamp_(-limit, limit)
    )
    assert verdict.status == "failed"
    assert "result.requires_grad = False; expected True" in verdict.message.en


def test_an_exception_in_the_student_function_is_an_error_reply():
    def crashes(params, lr):
        raise ValueError("boom")

    reply, _ = probe(find_check(SGD, "sgd_update"), sgd_inputs(), sgd_step=crashes)
    assert reply["ok"] is False and reply["phase"] == "call"
    assert reply["error"]["type"] == "ValueError"


def fn_inputs(pick):
    x = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
    return {
        "x": x,
        "w": torch.tensor([[3.0, -1.0]], dtype=torch.float64),
        "g": torch.tensor([[1.0, 0.5]], dtype=torch.float64),
        "scale": 2.0,
        "pick": pick,
    }


class Always(torch.autograd.Function):
    """Computes both gradients, whatever ctx.needs_input_grad says."""

    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        return x * w * scale

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w * ctx.scale, g * x * ctx.scale, None


def test_node_returns_sees_the_none_a_backward_gives():
    check = find_check(FN, "needs_input_grad")
    verdict = judge(FN, check, fn_inputs(0.2), scaled_mul=lambda x, w, s: Always.apply(x, w, s))
    assert verdict.status == "failed"
    assert "returned (tensor, tensor, None); expected (tensor, None, None)" in verdict.message.en
    assert "ctx.needs_input_grad" in verdict.message.en


def test_backward_with_the_upstream_fills_the_leaves_grads():
    check = find_check(FN, "forward_backward")
    # Plain operations: right values and gradients, but no custom Function (grad_fn differs).
    verdict = judge(FN, check, fn_inputs(0.9), scaled_mul=lambda x, w, s: x * w * s)
    assert verdict.status == "failed" and "grad_fn" in verdict.message.en
    assert "MulBackward0" in verdict.message.en and "ScaledMulBackward" in verdict.message.en
    assert (
        judge(FN, check, fn_inputs(0.9), scaled_mul=lambda x, w, s: Always.apply(x, w, s)).status
        == "failed"
    )


def write_spec(tmp_path, check_yaml: str) -> spec.Exercise:
    folder = tmp_path / "demo"
    folder.mkdir(exist_ok=True)
    (folder / "exercise.yaml").write_text(
        textwrap.dedent("""\
        format: 1
        id: demo
        title: {id: t, en: t}
        instructions: {id: t, en: t}
        checks:
        """)
        + textwrap.indent(textwrap.dedent(check_yaml), "  ")
    )
    return specfile.load(folder / "exercise.yaml", root=tmp_path)


EXCEPTION_CHECK = """\
- id: leaf_in_place
  kind: scenario
  title: {id: t, en: t}
  function: bump
  points: 1
  args:
    x: {shape: [3], requires_grad: true}
  reference: |
    def bump(x):
        x.add_(1.0)
  observe:
    exception: []
    x: [value]
"""


def test_the_exception_raised_is_an_observation(tmp_path):
    ex = write_spec(tmp_path, EXCEPTION_CHECK)
    check = ex.checks[0]
    inputs = {"x": torch.zeros(3, dtype=torch.float64)}

    def same(x):
        x.add_(1.0)

    def silent(x):
        with torch.no_grad():
            x.add_(1.0)

    assert judge(ex, check, inputs, bump=same) is None
    verdict = judge(ex, check, inputs, bump=silent)
    assert verdict.status == "failed" and "RuntimeError" in verdict.message.en


@pytest.mark.parametrize(
    "body, words",
    [
        ("observe: {result: [value]}", "need `reference:`"),
        ("reference: 'def f(x): return x'\n", "need `observe:`"),
        ("reference: 'def f(x) return x'\nobserve: {result: [value]}", "not valid Python"),
        ("reference: 'def g(x): return x'\nobserve: {result: [value]}", "defines no function 'f'"),
        (
            "reference: 'def f(x): return x'\nobserve: {result: [colour]}",
            "unknown facet(s) colour",
        ),
        (
            "reference: 'def f(x): return x'\nobserve: {model: [value]}",
            "'model' is neither an arg",
        ),
        ("reference: 'def f(x): return x'\nobserve: {result: value}", "expected a list of facets"),
    ],
)
def test_spec_errors_name_the_key(tmp_path, body, words):
    check = (
        "- id: c\n  kind: scenario\n  title: {id: t, en: t}\n  function: f\n  points: 1\n"
        "  args:\n    x: {shape: [2]}\n" + textwrap.indent(body, "  ") + "\n"
    )
    with pytest.raises(SpecError) as err:
        write_spec(tmp_path, check)
    assert words in str(err.value)


def test_a_reference_that_raises_is_the_graders_fault(tmp_path):
    ex = write_spec(
        tmp_path,
        """\
        - id: c
          kind: scenario
          title: {id: t, en: t}
          function: f
          points: 1
          args:
            x: {shape: [2]}
          reference: |
            def f(x):
                raise KeyError("oops")
          observe: {result: [value]}
        """,
    )
    with pytest.raises(SpecBug, match="KeyError"):
        judge(ex, ex.checks[0], {"x": torch.zeros(2, dtype=torch.float64)}, f=lambda x: x)


def test_the_answer_key_scores_full_marks_through_the_sandbox(grade_files):
    result = grade_files(
        {"manual_sgd.py": ROOT / "solutions" / "manual_sgd.py"}, ids=["manual_sgd"]
    )
    (ex,) = result.exercises
    assert ex.status == "passed" and ex.score == ex.max_score


GRAPH = specfile.load(EXERCISES / "graph_tracking" / "exercise.yaml")
GRAPH_INPUTS = {
    "a": torch.tensor([0.0], dtype=torch.float64),
    "c": torch.tensor([0.0], dtype=torch.float64),
    "k1": 0.0,
    "k2": 0.0,
    "k3": 1.0,  # out = (a * c) * a: two MulBackward0 nodes, one AccumulateGrad
    "track": 0.0,
}


def _nodes(out):
    seen, stack = [], [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return seen


def names_per_node(out):
    return sorted(type(n).__name__ for n in _nodes(out))


def test_a_list_of_another_length_is_quoted_whole_and_the_setup_named():
    check = find_check(GRAPH, "backward_nodes")
    verdict = judge(GRAPH, check, GRAPH_INPUTS, backward_nodes=names_per_node)
    en, id_ = verdict.message.en, verdict.message.id
    assert (
        "backward_nodes: result = ['AccumulateGrad', 'MulBackward0', 'MulBackward0']; "
        "expected ['AccumulateGrad', 'MulBackward0']." in en
    )
    assert "'MulBackward0' appears 2 times; expected once." in en
    assert "item(s)" not in en
    assert "backward_nodes ran on out, which this check's setup built from the failing input" in en
    assert "seharusnya ['AccumulateGrad', 'MulBackward0']" in id_
    assert "yang dibangun setup pemeriksaan ini dari input yang gagal" in id_


def test_the_failing_input_shows_the_setup_and_the_call_and_they_run():
    check = find_check(GRAPH, "backward_nodes")
    shown = KINDS["scenario"].counterexample(check, GRAPH_INPUTS)
    lines = shown.splitlines()
    assert lines[0].startswith("a = tensor([0.0], dtype=float64), c = tensor(")
    assert lines[1] == "def setup(a, c, k1, k2, k3, track):"
    assert lines[-2:] == ["out = setup(a, c, k1, k2, k3, track)['out']", "backward_nodes(out)"]
    # What follows the inputs builds the failing case again: the student's wrong list.
    scope = dict(scenario_probe.NAMESPACE, **GRAPH_INPUTS, backward_nodes=names_per_node)
    exec("\n".join(lines[1:-1]), scope)
    assert eval(lines[-1], scope) == ["AccumulateGrad", "MulBackward0", "MulBackward0"]


def test_every_shown_setup_of_the_course_runs_with_the_reference(exercises):
    from grader.grading.examples import draw

    ran = 0
    for exercise in exercises.values():
        for check in exercise.checks:
            if check.kind != "scenario" or not check.options.get("setup"):
                continue
            inputs = draw(exercise, check, KINDS["scenario"], 1, seed=0)[0]
            shown = KINDS["scenario"].counterexample(check, inputs).splitlines()[1:]
            fn = check.function.split(".")[-1]
            scope = {"torch": torch, **{k: _copy(v) for k, v in inputs.items()}}
            scope[fn] = scenario_probe.define(check.options["reference"], fn, "test")
            exec("\n".join(shown), scope)
            ran += 1
    assert ran >= 20


def _copy(v):
    return v.detach().clone() if isinstance(v, torch.Tensor) else v


def test_a_scenario_without_setup_shows_its_inputs_alone(tmp_path):
    ex = write_spec(tmp_path, EXCEPTION_CHECK)
    shown = KINDS["scenario"].counterexample(ex.checks[0], {"x": torch.zeros(3)})
    assert shown == "x = tensor([0.0, 0.0, 0.0], dtype=float32)"


FLOATS_CHECK = """\
- id: losses
  kind: scenario
  title: {id: t, en: t}
  function: losses
  points: 1
  args:
    x: {shape: [3]}
  reference: |
    def losses(x):
        return [1.0, 2.0]
  observe: {result: [value]}
"""


def test_a_float_item_that_differs_keeps_its_tolerance_beside_both_lists(tmp_path):
    ex = write_spec(tmp_path, FLOATS_CHECK)
    verdict = judge(ex, ex.checks[0], {"x": torch.zeros(3)}, losses=lambda x: [1.0, 2.5])
    assert "losses: result = [1.0, 2.5]; expected [1.0, 2.0]." in verdict.message.en
    assert "result[1].value" in verdict.message.en and "rtol=" in verdict.message.en
    assert "seharusnya [1.0, 2.0]" in verdict.message.id

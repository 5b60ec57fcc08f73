"""custom_sigmoid end to end: the key, every variant and every mutant, with their messages."""

from __future__ import annotations

import pytest
from conftest import SOLUTIONS, by_id

ID = "custom_sigmoid"
FILE = "custom_sigmoid.py"
VARIANTS = sorted((SOLUTIONS / "variants" / ID).glob("*.py"))
MUTANTS = sorted((SOLUTIONS / "mutants" / ID).glob("*.py"))

# mutant file stem -> (check that must fail, a word its English message must contain)
EXPECTED = {
    "anomaly_left_on": ("forward_value", "anomaly detection"),
    "backward_sums": ("backward_vjp", "shape"),
    "clamps_input_in_place": ("input_untouched", "input `x`"),
    "flattened_output": ("forward_value", "shape"),
    "float32_inside": ("forward_value", "float32"),
    "ignores_upstream": ("backward_vjp", "ignores grad_output"),
    "missing_one_minus_y": ("gradcheck", "numerical Jacobian"),
    "no_function": ("saved_for_backward", ".apply(...)"),
    "overflow_backward": ("backward_finite", "overflow"),
    "overflow_forward": ("forward_finite", "overflow"),
    "stashed_on_ctx": ("saved_for_backward", "ctx.y"),
    "uses_torch_sigmoid": ("no_builtin_sigmoid", "torch.sigmoid"),
    "aten_op_by_getattr": ("no_builtin_sigmoid", "as torch.ops.aten.sigmoid"),
    "tensorbase_method": ("no_builtin_sigmoid", "torch.Tensor.sigmoid"),
    "nn_module_by_eval": ("no_builtin_sigmoid", "torch.nn.Sigmoid"),
    "clamps_input_range": ("forward_finite", "values differ"),
    "clamps_output": ("forward_finite", "values differ"),
    "view_flat": ("forward_finite", "view size is not compatible"),
    "trivial_constant": ("forward_value", "values differ"),
    "trivial_identity": ("forward_value", "values differ"),
    "trivial_zeros": ("forward_value", "values differ"),
    "grad_output_in_place": ("backward_vjp", "changed grad_output in place"),
    "in_place_undone": ("input_untouched", "version counter"),
    "hook_left_on_input": ("backward_vjp", "left a hook on the caller's input `x`"),
}


def grade(grade_files, source):
    return by_id(grade_files({FILE: source}, ids=[ID]))[ID]


def test_every_mutant_has_an_expectation():
    assert {p.stem for p in MUTANTS} == set(EXPECTED)
    assert len(MUTANTS) >= 8 and len(VARIANTS) >= 3


def test_answer_key_gets_full_marks_and_the_bonus(grade_files):
    ex = grade(grade_files, SOLUTIONS / FILE)
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]
    assert ex.score == ex.max_score == 10
    assert (ex.bonus_score, ex.bonus_max) == (1, 1)


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_variant_gets_full_marks(grade_files, path):
    ex = grade(grade_files, path)
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]
    assert ex.bonus_score == ex.bonus_max


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_mutant_loses_points_with_a_message(grade_files, path):
    ex = grade(grade_files, path)
    check_id, word = EXPECTED[path.stem]
    failed = {c.id: c for c in ex.checks if c.status != "passed"}
    assert ex.score < ex.max_score
    assert check_id in failed, sorted(failed)
    row = failed[check_id]
    assert word in row.message.en, row.message.en
    assert row.message.id and row.message.id != row.message.en
    if row.kind != "forbidden_api":
        assert row.counterexample and "x = tensor(" in row.counterexample


def test_a_backward_that_cannot_be_differentiated_only_loses_the_bonus(grade_files):
    ex = grade(
        grade_files,
        """
        import torch

        class Sigmoid(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = 1 / (1 + torch.exp(-x))
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                y, = ctx.saved_tensors
                with torch.no_grad():
                    return grad_output * y * (1 - y)

        def sigmoid(x):
            return Sigmoid.apply(x)
    """,
    )
    assert ex.status == "passed" and ex.score == ex.max_score
    bonus = next(c for c in ex.checks if c.bonus)
    assert (bonus.id, bonus.status, bonus.points) == ("double_backward", "failed", 0)
    assert "torch.no_grad()" in bonus.message.en and "x = tensor(" in bonus.counterexample


def test_starter_scores_zero_with_not_implemented(grade_files, starters):
    ex = grade(grade_files, starters / FILE)
    dynamic = [c for c in ex.checks if c.kind != "forbidden_api"]
    assert ex.score == 0
    assert all(c.status == "error" for c in dynamic)
    assert "NotImplementedError" in dynamic[0].message.en


def test_a_bonus_needs_the_main_property_it_builds_on(grade_files):
    """A backward that returns None: the forward's checks pass, gradgradcheck has nothing to
    object to, but the backward's own checks fail, and the bonus is not earned on top of them."""
    ex = grade(
        grade_files,
        """
        import torch

        class Sigmoid(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = 1 / (1 + torch.exp(-x))
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, grad_output):
                return None

        def sigmoid(x):
            return Sigmoid.apply(x)
    """,
    )
    rows = {c.id: c for c in ex.checks}
    assert rows["forward_value"].status == "passed"
    assert rows["backward_vjp"].status != "passed"
    bonus = rows["double_backward"]
    assert (bonus.status, bonus.points, ex.bonus_score) == ("skipped", 0, 0)
    assert "Bonus not awarded yet" in bonus.message.en and "backward_vjp" in bonus.message.en

"""manual_gradient end to end: the key, every variant and every mutant, with their messages."""

from __future__ import annotations

import pytest
from conftest import SOLUTIONS, by_id

from grader.loader.config import Config

ID = "manual_gradient"
VARIANTS = sorted((SOLUTIONS / "variants" / ID).glob("*.py"))
MUTANTS = sorted((SOLUTIONS / "mutants" / ID).glob("*.py"))

# mutant file stem -> (check that must fail, a word its English message must contain)
EXPECTED = {
    "autograd_accumulates": ("autograd_df_repeatable", "accumulate"),
    "autograd_backward_on_input": ("autograd_df_tracked_input", ".grad"),
    "autograd_in_manual": ("no_autograd_in_manual", "torch.autograd.grad"),
    "autograd_marks_caller": ("autograd_df_untouched", "requires_grad"),
    "autograd_detaches_caller": ("autograd_df_untouched", "requires_grad"),
    "bias_not_summed": ("mlp_grads_value", 'result["b1"]'),
    "default_dtype_left": ("autograd_df_value", "default dtype"),
    "df_view_flat": ("df_value", "view size"),
    "mlp_writes_targets": ("mlp_grads_value", "in-place"),
    "finite_differences": ("df_value", "tolerance"),
    "float32_inside": ("df_value", "tolerance"),
    "leaf_kept_per_input": ("autograd_df_repeatable", "accumulate"),
    "leaf_only_if_untracked": ("autograd_df_value", "differ"),
    "hidden_autograd": ("no_autograd_in_manual", "made a tensor that requires grad"),
    "engine_in_helper": ("no_autograd_in_manual", "made a tensor that requires grad"),
    "func_from_sys_modules": ("no_autograd_in_manual", "torch.func.grad (as torch._functorch"),
    "forward_mode_dual_numbers": (
        "no_autograd_in_manual",
        "torch.autograd.forward_ad.enter_dual_level (as torch._C._enter_dual_level",
    ),
    "parameter_and_exec": ("no_autograd_in_manual", "torch.Tensor.backward (line 25: `exec("),
    "tanh_from_exp": ("grad_g_wide", "NaN"),
    "mean_divisor": ("mlp_grads_value", "differ"),
    "missing_chain_factor": ("df_value", "Worst element"),
    "naive_sigmoid_derivative": ("df_finite", "finite"),
    "no_relu_mask": ("mlp_grads_value", "differ"),
    "quotient_rule": ("df_value", "differ"),
    "relu_mask_ge": ("mlp_grads_value", "differ"),
    "sign_error": ("df_value", "differ"),
    "swapped_partials": ("grad_g_value", "result[0]"),
    "transposed_weight_grad": ("mlp_grads_value", "shape"),
    "trivial_identity": ("df_value", "differ"),
    "trivial_zeros": ("df_value", "differ"),
}


def test_every_mutant_has_an_expectation():
    assert {p.stem for p in MUTANTS} == set(EXPECTED)
    assert len(MUTANTS) >= 8 and len(VARIANTS) >= 2


def test_answer_key_gets_full_marks(grade_files):
    result = grade_files({"manual_gradient.py": SOLUTIONS / "manual_gradient.py"}, ids=[ID])
    ex = by_id(result)[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]
    assert ex.score == ex.max_score == 19


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_variant_gets_full_marks(grade_files, path):
    ex = by_id(grade_files({"manual_gradient.py": path}, ids=[ID]))[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_mutant_loses_points_with_a_message(grade_files, path):
    # The shipped number of examples: relu'(0) needs an exact zero, which takes a few dozen draws.
    ex = by_id(grade_files({"manual_gradient.py": path}, ids=[ID], config=Config(), hidden=True))[
        ID
    ]
    check_id, word = EXPECTED[path.stem]
    failed = {c.id: c for c in ex.checks if c.status != "passed"}
    assert ex.score < ex.max_score
    assert check_id in failed, sorted(failed)
    row = failed[check_id]
    assert word in row.message.en, row.message.en
    assert row.message.id and row.message.id != row.message.en
    if row.kind != "forbidden_api":
        assert row.counterexample and "x = tensor(" in row.counterexample


def test_starter_scores_zero_with_not_implemented(grade_files, starters):
    starter = starters / "manual_gradient.py"
    ex = by_id(grade_files({"manual_gradient.py": starter}, ids=[ID]))[ID]
    dynamic = [c for c in ex.checks if c.kind != "forbidden_api"]
    assert all(c.status == "error" for c in dynamic)
    assert "NotImplementedError" in dynamic[0].message.en

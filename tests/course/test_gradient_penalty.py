"""gradient_penalty end to end: the key, every variant and every mutant, with their messages.

The key and the variants are graded on the whole exercise; each mutant on the check that must
catch it (`python -m grader validate gradient_penalty` grades every mutant on every check).
"""

from __future__ import annotations

import dataclasses

import pytest
from conftest import SOLUTIONS, by_id

from grader.grading.grade import grade_exercise

ID = "gradient_penalty"
VARIANTS = sorted((SOLUTIONS / "variants" / ID).glob("*.py"))
MUTANTS = sorted((SOLUTIONS / "mutants" / ID).glob("*.py"))

# mutant file stem -> (check that must fail, words its English message must contain)
EXPECTED = {
    "default_dtype_left": ("penalty_vectors", "default dtype"),
    "view_flat_inputs": ("penalty_images", "view size"),
    "abs_deviation": ("penalty_vectors", "|‖g‖ - 1|"),
    "alpha_not_reshaped": ("penalty_images", "size of tensor"),
    "alpha_view_2d": ("penalty_images", "size of tensor"),
    "backward_inside": ("no_side_effects", "wrote .grad"),
    "detached_result": ("param_grads_vectors", "graph"),
    "grad_at_real": ("penalty_vectors", "taken at real"),
    "interpolation_swapped": ("penalty_vectors", "wrong way round"),
    "item_result": ("penalty_vectors", ".item()"),
    "lam_default_one": ("default_lam", "default must be 10.0"),
    "marks_caller": ("no_side_effects", "requires_grad of the caller's input `real`"),
    "no_create_graph": ("param_grads_images", "graph"),
    "no_lam": ("penalty_vectors", "without the factor lam"),
    "norm_dim1_images": ("penalty_images", "dim 1 only"),
    "norm_whole_batch": ("penalty_vectors", "whole batch"),
    "ones_n1_grad_outputs": ("penalty_vectors", "Mismatch in shape"),
    "real_in_place": ("no_side_effects", "its input `real`"),
    "sqrt_no_eps": ("dead_relu_finite", "the zero vector"),
    "squared_norm": ("penalty_vectors", "‖g‖² (the sum of squares)"),
    "sum_not_mean": ("penalty_vectors", "summed over the batch"),
    "weight_clipping": ("no_side_effects", "changed the critic's parameter"),
    "zero_grad_inside": ("no_side_effects", "zero_grad() wipes it"),
    "trivial_constant": ("penalty_vectors", "penalty"),
    "trivial_zeros": ("penalty_vectors", "penalty"),
    "train_mode_left_on": ("no_side_effects", "changed the critic's mode"),
    "unfreezes_critic": ("no_side_effects", "which the caller froze"),
    "alpha_4d_on_vectors": ("penalty_vectors", "alpha shaped (N, 1, 1, 1) on (N, D) data"),
    "one_alpha": ("penalty_vectors", "one alpha (alpha[0]) for the whole batch"),
}


def _grade(path, exercise, sandbox, config, tmp_path):
    sub = tmp_path / "submission"
    sub.mkdir(exist_ok=True)
    (sub / exercise.file).write_bytes(path.read_bytes())
    return grade_exercise(exercise=exercise, submission_dir=sub, config=config, sandbox=sandbox)


def test_every_mutant_has_an_expectation():
    assert {p.stem for p in MUTANTS} == set(EXPECTED)
    assert len(MUTANTS) >= 10 and len(VARIANTS) >= 3


def test_answer_key_gets_full_marks(grade_files):
    ex = by_id(grade_files({f"{ID}.py": SOLUTIONS / f"{ID}.py"}, ids=[ID]))[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]
    assert ex.score == ex.max_score == 12


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_variant_gets_full_marks(grade_files, path):
    ex = by_id(grade_files({f"{ID}.py": path}, ids=[ID]))[ID]
    assert ex.status == "passed", [(c.id, c.message) for c in ex.checks if c.status != "passed"]


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_mutant_loses_points_with_a_message(path, exercises, sandbox, fast_config, tmp_path):
    check_id, words = EXPECTED[path.stem]
    full = exercises[ID]
    only = dataclasses.replace(full, checks=tuple(c for c in full.checks if c.id == check_id))
    ex = _grade(path, only, sandbox, fast_config, tmp_path)
    (row,) = ex.checks
    assert ex.score < ex.max_score
    assert row.status in ("failed", "error"), row.status
    assert words in row.message.en, row.message.en
    assert row.message.id and row.message.id != row.message.en
    assert row.counterexample and "real = tensor(" in row.counterexample


def test_starter_scores_zero_with_not_implemented(grade_files, starters):
    starter = starters / f"{ID}.py"
    ex = by_id(grade_files({f"{ID}.py": starter}, ids=[ID]))[ID]
    assert ex.score == 0
    assert all(c.status == "error" for c in ex.checks)
    assert "NotImplementedError" in ex.checks[0].message.en


def test_code_that_raises_sees_the_critic_and_a_hint_for_the_error(
    exercises, sandbox, fast_config, tmp_path
):
    full = exercises[ID]
    only = dataclasses.replace(
        full, checks=tuple(c for c in full.checks if c.id == "penalty_images")
    )
    ex = _grade(
        SOLUTIONS / "mutants" / ID / "alpha_not_reshaped.py", only, sandbox, fast_config, tmp_path
    )
    (row,) = ex.checks
    assert row.status == "error"
    assert "Critic: CNN" in row.message.en and "called on x̂ of shape (" in row.message.en
    # the default feedback level keeps the hint back (grader.outcomes.levels): it is held, not lost
    assert row.hint is None and row.held_hint is not None
    assert "Your code raised" in row.held_hint.en and row.held_hint != only.checks[0].hint

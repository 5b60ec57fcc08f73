"""The rowwise_value and rowwise_vjp kinds: row patterns in the inputs, and the kink allowance."""

from __future__ import annotations

import pytest
import torch
from conftest import EXERCISES
from hypothesis import find, given, settings
from inprocess import judge

from grader.checks.rowwise import with_rows
from grader.common.errors import SpecError
from grader.loader import specfile

EXERCISE = specfile.load(EXERCISES / "nan_debugging" / "exercise.yaml")
CHECKS = {c.id: c for c in EXERCISE.checks}
NORM_GRAD = CHECKS["safe_norm_grad"]
LSM_LARGE = CHECKS["log_softmax_large"]


def t(rows):
    return torch.tensor(rows, dtype=torch.float64)


# --- row patterns -----------------------------------------------------------------------------


def test_zero_and_tiny_rows_are_drawn():
    rows = with_rows(EXERCISE, NORM_GRAD)
    zero = find(
        rows, lambda d: bool((d["v"] == 0).all(-1).any()), settings=settings(database=None)
    )
    assert zero["v"].shape[:-1] == zero["g"].shape
    tiny = find(
        rows,
        lambda d: bool(((d["v"].abs().amax(-1) < 1e-3) & (d["v"] != 0).any(-1)).any()),
        settings=settings(database=None),
    )
    assert tiny["v"].abs().max() <= 5


@settings(max_examples=40, deadline=None, database=None)
@given(with_rows(EXERCISE, LSM_LARGE))
def test_shifted_rows_stay_in_the_args_range(inputs):
    logits = inputs["logits"]
    assert logits.dtype == torch.float64 and logits.dim() == 2
    assert bool((logits.abs() <= 10000).all())


def test_shifted_rows_put_rows_far_apart():
    found = find(
        with_rows(EXERCISE, LSM_LARGE),
        lambda d: (
            d["logits"].shape[0] >= 2
            and float(d["logits"].amax(-1).max() - d["logits"].amax(-1).min()) > 1000
            and float((d["logits"].amax(-1) - d["logits"].amin(-1)).max()) < 30
        ),
        settings=settings(database=None, max_examples=2000),
    )
    assert found["logits"].shape[0] >= 2


# --- the kink allowance -----------------------------------------------------------------------


def _norm_inputs():
    return {"v": t([[0.0, 0.0], [3.0, 4.0]]), "g": t([2.0, 1.0])}


def test_any_short_finite_gradient_at_zero_is_accepted():
    def subgradient(v):
        s = (v * v).sum(-1)
        ok = s > 0
        norm = torch.where(ok, torch.sqrt(torch.where(ok, s, torch.ones_like(s))), 0 * s)
        # At 0, a subgradient of length 0.5 (not torch's 0): still right.
        return norm + torch.where(ok, 0 * v[..., 0], 0.5 * v[..., 0])

    assert judge(EXERCISE, NORM_GRAD, _norm_inputs(), safe_norm=subgradient) is None


def test_nan_at_zero_is_named_with_its_row():
    verdict = judge(
        EXERCISE, NORM_GRAD, _norm_inputs(), safe_norm=lambda v: torch.sqrt((v * v).sum(-1))
    )
    assert verdict.status == "failed"
    assert "at row [0] is not finite" in verdict.message.en
    assert "baris [0]" in verdict.message.id


def test_a_gradient_longer_than_the_bound_at_zero_is_not_a_subgradient():
    def too_steep(v):
        s = (v * v).sum(-1)
        ok = s > 0
        norm = torch.where(ok, torch.sqrt(torch.where(ok, s, torch.ones_like(s))), 0 * s)
        return norm + torch.where(ok, 0 * v[..., 0], 3 * v[..., 0])

    verdict = judge(EXERCISE, NORM_GRAD, _norm_inputs(), safe_norm=too_steep)
    assert "not a subgradient" in verdict.message.en


def test_smooth_rows_are_still_compared():
    verdict = judge(
        EXERCISE, NORM_GRAD, _norm_inputs(), safe_norm=lambda v: torch.sqrt((v * v).sum(-1) + 1e-8)
    )
    # Row 0 (the zero vector) is judged by the allowance; row 1 by the comparison.
    assert verdict.status == "failed" and "v.grad[1, " in verdict.message.en
    assert "2 of 4 elements differ" in verdict.message.en
    assert "must equal torch's" in verdict.message.en


LSM_VALUE = CHECKS["log_softmax_value"]
ROWS = t([[[0.0, -1.0, 3.0], [1.0, 2.0, 3.0]]])


@pytest.mark.parametrize(
    "answer, named, not_named",
    [
        # An epsilon inside the log: every element shifted by the same amount under exp.
        (lambda x: torch.log(torch.softmax(x, -1) + 1e-8), "log(p + 1e-08)", "underflow"),
        # The row maximum subtracted, then the log of a ratio: only the underflowing element is off.
        (
            lambda x: torch.log(
                torch.exp(x - x.amax(-1, keepdim=True))
                / torch.exp(x - x.amax(-1, keepdim=True)).sum(-1, keepdim=True)
            ),
            "underflow",
            "epsilon",
        ),
        # float32 arithmetic, cast back.
        (lambda x: torch.log_softmax(x.float(), -1).double(), "float32", "epsilon"),
    ],
)
def test_a_named_cause_is_shown_only_when_the_values_match_it(answer, named, not_named):
    inputs = {"logits": ROWS if named != "underflow" else t([[[0.0, -740.0, 3.0]]])}
    verdict = judge(EXERCISE, LSM_VALUE, inputs, log_softmax=answer)
    assert verdict is not None and named in verdict.message.en, verdict.message.en
    assert not_named not in verdict.message.en
    mistake = {"log(p + 1e-08)": "epsilon_in_log", "underflow": "log_of_underflow"}.get(named)
    assert (verdict.mistake.id if verdict.mistake else None) == mistake  # float32: no mistake


def test_no_cause_is_named_when_none_matches():
    # Right except one element nudged: neither an epsilon, nor float32, nor an underflow.
    def nudged(x):
        out = torch.log_softmax(x, -1).clone()
        out[..., 0] *= 1 + 1e-7
        return out

    verdict = judge(EXERCISE, LSM_VALUE, {"logits": t([[[0.0, 1.0, 3.0]]])}, log_softmax=nudged)
    text = verdict.message.en
    assert "nearly right" in text and verdict.mistake is None
    assert not any(w in text for w in ("epsilon", "float32", "underflow"))


def test_value_kind_flags_nan_first():
    inputs = {"logits": t([[1000.0, 0.0]])}
    verdict = judge(
        EXERCISE, LSM_LARGE, inputs, log_softmax=lambda x: torch.log(torch.softmax(x, -1))
    )
    assert "non-finite" in verdict.message.en
    assert (
        judge(EXERCISE, LSM_LARGE, inputs, log_softmax=lambda x: torch.log_softmax(x, -1)) is None
    )


# --- spec validation --------------------------------------------------------------------------

TEXT = (EXERCISES / "nan_debugging" / "exercise.yaml").read_text()


def _load(tmp_path, old, new):
    assert old in TEXT
    folder = tmp_path / "nan_debugging"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(TEXT.replace(old, new, 1))
    return specfile.load(folder / "exercise.yaml", root=tmp_path)


@pytest.mark.parametrize(
    "old, new, key, words",
    [
        (
            "rows: [zero, tiny]\n    smooth_from",
            "rows: [zero, huge]\n    smooth_from",
            "rows",
            "'huge'",
        ),
        (
            "v: {shape: [B, N, D], low: -5, high: 5, requires_grad: true}",
            "v: {shape: [B, N, D], low: -5, high: 5}",
            "args",
            "requires_grad: true",
        ),
        (
            "expect: {grad_of: norm, wrt: v, upstream: g}",
            "expect: {grad_of: norm, wrt: v}",
            "expect",
            "upstream",
        ),
    ],
)
def test_spec_errors_name_the_key(tmp_path, old, new, key, words):
    with pytest.raises(SpecError) as err:
        _load(tmp_path, old, new)
    assert err.value.key.endswith(key) and words in err.value.message, err.value
    assert err.value.line is not None

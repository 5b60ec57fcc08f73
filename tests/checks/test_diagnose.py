"""Named mistakes (grader.checks.named.diagnose): a constant factor confirmed over examples, and a
scenario's gradient that was not reset; each named only where the values match it. (The small
errors' names: tests/checks/test_checks_rowwise.py; the scenarios end to end:
tests/checks/test_checks_scenario.py.)"""

from __future__ import annotations

import torch
from conftest import find_check
from inprocess import probe

from grader.checks import KINDS
from grader.checks.base import Judging
from grader.checks.named import diagnose
from grader.common.wire import TensorFacts


def f(*values) -> TensorFacts:
    return TensorFacts(data=torch.tensor(values, dtype=torch.float64))


def w(*values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def test_a_constant_factor_is_found_only_where_every_element_has_it():
    assert diagnose.factor(f(3.0, 0.0, -6.0), w(1.0, 0.0, -2.0)) == 3.0
    assert diagnose.factor(f(3.0, 1.0, -6.0), w(1.0, 0.0, -2.0)) is None  # not 0 where torch is
    assert diagnose.factor(f(3.0, 4.0), w(1.0, 2.0)) is None  # no one factor
    assert diagnose.factor(f(1.0, 2.0), w(1.0, 2.0)) is None  # right: no mistake
    assert diagnose.factor(f(0.0, 0.0), w(1.0, 2.0)) is None  # zeros: no factor
    assert diagnose.factor(f(2.0, float("nan")), w(1.0, 2.0)) is None
    assert diagnose.factor(f(2.0), w(1.0, 2.0)) is None  # another shape


def test_a_scalar_keeps_its_factor_only_where_every_example_has_the_same():
    assert diagnose.factor_candidates(f(6.0, 3.0), w(2.0, 1.0)) == {"scaled", "scaled:3"}
    assert diagnose.factor_candidates(f(6.0), w(2.0)) == {"scaled:3"}
    # Confirmed over examples (their intersection): a batch size changes with the example, a
    # wrong scalar's ratio too, which names nothing.
    many = diagnose.factor_candidates(f(6.0, 3.0), w(2.0, 1.0)) & diagnose.factor_candidates(
        f(8.0, 4.0), w(2.0, 1.0)
    )
    assert many == {"scaled"}
    scalars = diagnose.factor_candidates(f(6.0), w(2.0)) & diagnose.factor_candidates(
        f(5.0), w(1.0)
    )
    assert scalars == set() and diagnose.factor_named(f(6.0), w(2.0), scalars) is None


def test_the_factor_named_says_it_and_a_flipped_sign_is_its_own_mistake():
    mistake, text = diagnose.factor_named(f(6.0, 3.0), w(2.0, 1.0), frozenset({"scaled"}))
    assert mistake is diagnose.SCALED and "× 3 at every element" in text.en
    assert diagnose.factor_named(f(6.0, 3.0), w(2.0, 1.0), None) is None  # not yet confirmed
    flipped = diagnose.factor_named(f(-2.0, -1.0), w(2.0, 1.0), frozenset({"scaled"}))
    assert flipped[0] is diagnose.SIGN_FLIPPED and "sign is flipped" in flipped[1].en


def test_the_value_kind_names_the_factor_once_confirmed(exercises):
    ex = exercises["loss_gradients"]
    check = find_check(ex, "mse_mean_value")
    g = torch.Generator().manual_seed(1)
    inputs = {a.name: torch.rand(3, 4, generator=g, dtype=torch.float64) for a in check.args}

    def by_rows(pred, target):  # divided by the batch size, not by every element
        return 2 * (pred - target) / pred.shape[0]

    reply, values = probe(check, inputs, **{check.function: by_rows})
    kind = KINDS[check.kind]
    assert kind.candidates(Judging(ex, check, inputs), reply, values) == {"scaled", "scaled:4"}
    plain = kind.judge(Judging(ex, check, inputs), reply, values)
    assert plain.mistake is None and "constant factor" not in plain.message.en
    named = kind.judge(Judging(ex, check, inputs, confirmed=frozenset({"scaled"})), reply, values)
    assert named.mistake.id == "scaled" and "× 4 at every element" in named.message.en


def test_a_gradient_kept_is_named_only_where_it_is_torchs_plus_the_old_one():
    old = TensorFacts(data=w(1.0, 2.0))
    before = {"p": {"value": f(0.0, 0.0), "grad": old}}
    want = {"p": {"value": f(0.0, 0.0), "grad": f(0.5, 0.5)}}

    class Ctx:
        tolerances = {torch.float64: (1e-10, 1e-12)}

    kept = {"p": {"value": f(0.0, 0.0), "grad": f(1.5, 2.5)}}
    assert (
        "p: .grad equals torch's gradient plus"
        in diagnose.kept_grads(Ctx, kept, want, lambda: before).en
    )
    other = {"p": {"value": f(0.0, 0.0), "grad": f(1.0, 1.0)}}
    assert diagnose.kept_grads(Ctx, other, want, lambda: before) is None
    nothing_before = {"p": {"value": f(0.0, 0.0), "grad": None}}
    assert diagnose.kept_grads(Ctx, kept, want, lambda: nothing_before) is None


def test_the_log_of_a_zero_probability_is_named_only_where_exp_of_torchs_value_is_zero():
    inf = float("inf")
    want = w(0.0, -900.0, -2000.0)  # exp(-900) and exp(-2000) are 0 in float64
    named = diagnose.log_of_zero_named(w(0.0, -inf, -inf), want)
    assert named is not None and named[0] is diagnose.UNDERFLOW
    assert "log(0) = -inf" in named[1].en and "underflow" in named[1].id
    assert diagnose.log_of_zero_named(w(-inf, -inf, -inf), want) is None  # -inf at a normal one
    assert diagnose.log_of_zero_named(w(0.0, inf, -inf), want) is None  # +inf is no log(0)
    assert diagnose.log_of_zero_named(w(0.0, float("nan"), -inf), want) is None  # nor a NaN
    assert diagnose.log_of_zero_named(w(0.0, -900.0, -2000.0), want) is None  # all finite

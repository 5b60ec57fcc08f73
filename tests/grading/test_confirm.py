"""grader.grading.confirm: fresh draws are the same for everyone; kinds that name nothing are untouched.
(End to end: the gradient_penalty mutants whose shrunk examples coincide with other mistakes,
norm_whole_batch, one_alpha, alpha_4d_on_vectors, get only their own diagnosis.)"""

from __future__ import annotations

import torch
from conftest import find_check

from grader.checks import KINDS
from grader.checks.base import Verdict
from grader.grading import confirm
from grader.specs.model import Text


def test_fresh_draws_are_reproducible(exercises):
    ex = exercises["gradient_penalty"]
    check = find_check(ex, "penalty_vectors")
    kind = KINDS[check.kind]
    a = confirm.fresh(ex, check, kind, seed=7)
    b = confirm.fresh(ex, check, kind, seed=7)
    assert len(a) == confirm.FRESH and len(b) == len(a)
    for x, y in zip(a, b):
        assert torch.equal(x["real"], y["real"]) and torch.equal(x["alpha"], y["alpha"])
    assert any(x["real"].shape[0] > 1 for x in a)  # not only the degenerate minimal example


def test_fresh_draws_are_drawn_once_and_given_as_copies(exercises, monkeypatch):
    """Drawn once in a process (every student's confirmation asks for the same), yet a kind
    that changes the inputs it is given changes no other student's."""
    ex = exercises["gradient_penalty"]
    check = find_check(ex, "penalty_vectors")
    kind = KINDS[check.kind]
    first = confirm.fresh(ex, check, kind, seed=11)
    first[0]["real"].add_(1000.0)  # what a kind may do to its own copy
    drew = []
    monkeypatch.setattr(confirm, "_draw", lambda *a: drew.append(a) or [])
    again = confirm.fresh(ex, check, kind, seed=11)
    assert drew == [] and len(again) == confirm.FRESH
    assert float(again[0]["real"].abs().max()) < 1000.0
    assert again[0]["real"] is not first[0]["real"]
    confirm.fresh(ex, check, kind, seed=12)  # another seed: drawn for itself
    assert len(drew) == 1


def test_a_kind_that_names_nothing_keeps_its_verdict(exercises):
    ex = exercises["custom_sigmoid"]
    check = find_check(ex, "forward_finite")  # finite: a value kind that names no factor
    verdict = Verdict("failed", Text(id="x", en="x"))
    out = confirm.confirmed(
        session=None,
        exercise=ex,
        check=check,
        kind=KINDS[check.kind],
        verdict=verdict,
        shrunk={},
        first=None,
        seed=0,
    )
    assert out is verdict


def test_a_reply_no_kind_can_read_keeps_its_verdict_and_raises_nothing(exercises):
    """A reply tampered code forged (it says ok, and holds no values): no mistake is named
    from it and confirming it raises nothing (the release's recorded path, as confirmed()
    does for a call that raised)."""
    ex = exercises["loss_gradients"]
    check = find_check(ex, "mse_mean_value")  # a value kind: it names a factor or a sign
    kind = KINDS[check.kind]
    assert type(kind).candidates is not type(kind).__mro__[-2].candidates
    verdict = Verdict("failed", Text(id="x", en="x"))
    forged = ({"pred": torch.ones(2), "target": torch.zeros(2)}, {}, {"ok": True}, {"outs": None})
    out = confirm.recorded(
        exercise=ex, check=check, kind=kind, verdict=verdict, first=forged, others=[forged]
    )
    assert out is verdict

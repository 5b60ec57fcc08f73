"""Side effects judged by default (grader.checks.effects): global modes, the caller's tensor
arguments, and a scenario's objects changed only as the reference changes them."""

from __future__ import annotations

import dataclasses

import torch
from conftest import EXERCISES, find_check
from inprocess import verdict

from grader.loader import specfile
from grader.specs import strategies

GRAD = specfile.load(EXERCISES / "manual_gradient" / "exercise.yaml")
SGD = specfile.load(EXERCISES / "manual_sgd" / "exercise.yaml")
EMA = specfile.load(EXERCISES / "detach_tricks" / "exercise.yaml")


def df(x):
    """f(x) = exp(-x²)·sin(3x) + log(1 + x²)·sigmoid(x), differentiated by autograd."""
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        y = torch.exp(-(leaf**2)) * torch.sin(3 * leaf) + torch.log(1 + leaf**2) * torch.sigmoid(
            leaf
        )
        return torch.autograd.grad(y.sum(), leaf)[0]


def x_in():
    return {"x": torch.linspace(-2, 2, 6, dtype=torch.float64).reshape(2, 3)}


def test_a_right_answer_passes_with_every_default(monkeypatch):
    check = find_check(GRAD, "df_value")
    assert verdict(GRAD, check, x_in(), df=df) is None


def test_a_mode_left_changed_fails_and_is_set_back():
    check = find_check(GRAD, "df_value")

    def leaves_modes(x):
        torch.set_default_dtype(torch.float64)
        torch.autograd.set_detect_anomaly(True)
        return df(x)

    v = verdict(GRAD, check, x_in(), df=leaves_modes)
    assert v is not None and v.status == "failed"
    assert v.cause.startswith("modes:") and "default_dtype" in v.cause
    assert "anomaly" in v.message.en and "restore" in v.message.en
    assert torch.get_default_dtype() == torch.float32 and not torch.is_anomaly_enabled()


def test_grad_mode_switched_off_and_never_restored_fails():
    check = find_check(GRAD, "df_value")

    def grad_off(x):
        torch.set_grad_enabled(False)
        return df(x)

    v = verdict(GRAD, check, x_in(), df=grad_off)
    assert v is not None and "grad_mode" in v.cause
    assert torch.is_grad_enabled()


def test_a_with_block_that_restores_the_mode_passes():
    check = find_check(GRAD, "df_value")

    def inside_with(x):
        with torch.no_grad(), torch.autograd.detect_anomaly():
            return df(x)

    assert verdict(GRAD, check, x_in(), df=inside_with) is None


def test_writing_into_a_callers_argument_fails_by_default_and_may_change_allows_it():
    check = find_check(GRAD, "df_value")

    def writes_back(x):
        out = df(x)
        x.mul_(1.0)  # same values, but written in place
        return out

    v = verdict(GRAD, check, x_in(), df=writes_back)
    assert v is not None and v.cause.startswith("caller:") and "in place" in v.message.en
    allowed = dataclasses.replace(check, may_change=("x",))
    assert verdict(GRAD, allowed, x_in(), df=writes_back) is None


def test_marking_the_callers_tensor_fails():
    check = find_check(GRAD, "df_value")

    def marks(x):
        x.requires_grad_(True)
        return df(x).detach()

    v = verdict(GRAD, check, x_in(), df=marks)
    assert v is not None and "requires_grad" in v.message.en


def sgd_inputs():
    return {
        "w1": torch.tensor([1.0, -2.0], dtype=torch.float64),
        "w2": torch.ones(2, 3, dtype=torch.float64),
        "g1": torch.tensor([0.5, 0.5], dtype=torch.float64),
        "g2": torch.full((2, 3), 2.0, dtype=torch.float64),
        "lr": 0.1,
        "pick": 0.9,
    }


def sgd_key(params, lr):
    with torch.no_grad():
        for p in params:
            if p.grad is not None:
                p -= lr * p.grad
    for p in params:
        p.grad = None


def test_a_scenario_function_may_change_what_the_reference_changes():
    assert verdict(SGD, find_check(SGD, "sgd_update"), sgd_inputs(), sgd_step=sgd_key) is None


def test_new_tensors_in_the_callers_list_fail_though_the_list_reads_right():
    def replaces(params, lr):
        for i, p in enumerate(params):
            if p.grad is not None:
                params[i] = (p.detach() - lr * p.grad).requires_grad_()

    v = verdict(SGD, find_check(SGD, "sgd_update"), sgd_inputs(), sgd_step=replaces)
    assert v is not None and v.cause.startswith("caller:")
    assert "params" in v.message.en and "in place" in v.message.en


def test_a_grad_the_reference_leaves_must_stay():
    check = find_check(SGD, "clamp_in_place")
    inputs = {
        "w": torch.tensor([[3.0, -0.2]], dtype=torch.float64),
        "g": torch.tensor([[0.1, 0.2]], dtype=torch.float64),
        "limit": 1.0,
    }

    def clamps_and_zeroes(w, limit):
        with torch.no_grad():
            w.clamp_(-limit, limit)
        w.grad.zero_()
        return w

    observed = dataclasses.replace(
        check, options=dict(check.options, observe={"result": ["value"]})
    )
    v = verdict(SGD, observed, inputs, clamp_weights_=clamps_and_zeroes)
    assert v is not None and v.cause.startswith("caller:") and "w.grad" in v.message.en


def smallest_inputs(exercise, check) -> dict:
    """One example of the check's args: each named size at its lowest, values from a fixed
    generator, floats at the middle of their range."""
    from grader.specs.model import TensorArg

    g = torch.Generator().manual_seed(0)
    out: dict = {}
    for a in check.args:
        if not isinstance(a, TensorArg):
            out[a.name] = (a.low + a.high) / 2
            continue
        shape = out[a.like].shape if a.like else a.shape
        if shape == "any":
            shape = (3,)
        sizes = [exercise.dims[d][0] if isinstance(d, str) else d for d in shape]
        out[a.name] = a.low + (a.high - a.low) * torch.rand(
            *sizes, generator=g, dtype=torch.float64
        )
    return out


def test_a_module_left_in_eval_mode_fails():
    ex = specfile.load(EXERCISES / "no_grad_inference" / "exercise.yaml")
    check = find_check(ex, "predict_no_graph")
    inputs = smallest_inputs(ex, check)

    def evals(model, x):
        model.eval()
        with torch.no_grad():
            return model(x)

    def key(model, x):
        with torch.no_grad():
            return model(x)

    assert verdict(ex, check, inputs, predict=key) is None
    v = verdict(ex, check, inputs, predict=evals)
    assert v is not None and "eval" in v.message.en


def held_x():
    """x as a caller may hold it: already requiring grad, with an old .grad (a starting state)."""
    inputs = x_in()
    inputs[strategies.STATE] = {"x": torch.full((2, 3), 0.5, dtype=torch.float64)}
    return inputs


def test_a_callers_x_that_already_requires_grad_keeps_its_flag_and_old_grad():
    check = find_check(GRAD, "autograd_df_untouched")
    assert verdict(GRAD, check, held_x(), autograd_df=df) is None

    def on_the_callers_x(x):  # right for a fresh x: its backward writes into the old .grad
        x.requires_grad_(True)
        y = torch.exp(-(x**2)) * torch.sin(3 * x) + torch.log(1 + x**2) * torch.sigmoid(x)
        y.sum().backward()
        return x.grad.clone()

    v = verdict(GRAD, check, held_x(), autograd_df=on_the_callers_x)
    assert v is not None and v.cause.startswith("caller:") and "old .grad" in v.message.en

    def wipes(x):
        x.grad = None
        return df(x)

    v = verdict(GRAD, check, held_x(), autograd_df=wipes)
    assert v is not None and "old .grad" in v.message.en

    def clears_flag(x):
        x.requires_grad_(False)
        return df(x)

    v = verdict(GRAD, check, held_x(), autograd_df=clears_flag)
    assert v is not None and "requires_grad" in v.message.en

"""Method seen where the outcome cannot show it (grader.checks.named.counted): the probe counts a
module's forward passes and a custom Function's backward work, run here in-process as the
grader runs a reference, and the judge compares them with the reference's."""

from __future__ import annotations

import torch
from torch import nn

from grader.checks.named import counted
from grader.sandbox.probes import scenario as probe


class _Mul(torch.autograd.Function):
    """x * w, each gradient computed only where needed (skip=True) or always (skip=False)."""

    skip = True

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need_x, need_w = ctx.needs_input_grad
        gx = g * w if need_x or not _Mul.skip else None
        gw = g * x if need_w or not _Mul.skip else None
        return (gx if need_x else None), (gw if need_w else None)


def _run(fn, objs: dict, call: list, observe: dict) -> dict:
    plan = {"observe": observe, "call": call}
    return probe.run(fn, None, objs, plan, probe.local_guard)


def _work(skip: bool) -> dict:
    _Mul.skip = skip
    try:
        x, w = torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
        objs = {"x": x.requires_grad_(True), "w": w}  # only x needs a gradient
        return _run(_Mul.apply, objs, ["x", "w"], {"result": ["backward_work"]})[probe.COUNTS]
    finally:
        _Mul.skip = True


def test_backward_work_tells_a_skipped_gradient_from_a_dropped_one():
    skipped, dropped = _work(True)["result"], _work(False)["result"]
    assert skipped["needs"] == [True, False] and skipped["ops"] < skipped["ops_all"]
    assert dropped["ops"] == dropped["ops_all"]
    assert counted.judge("f", {"result": skipped}, {"result": skipped}) is None
    verdict = counted.judge("f", {"result": dropped}, {"result": skipped})
    assert verdict.status == "failed" and "needs_input_grad" in verdict.message.en
    # Where the reference saves no work, none is asked of the student.
    assert counted.judge("f", {"result": dropped}, {"result": dropped}) is None


def test_backward_work_of_plain_operations_is_no_functions():
    objs = {"x": torch.randn(2, dtype=torch.float64, requires_grad=True)}
    seen = _run(lambda x: x * 2, objs, ["x"], {"result": ["backward_work"]})[probe.COUNTS]
    assert seen == {"result": None}
    want = _work(True)
    verdict = counted.judge("f", seen, want)
    assert verdict is not None and "autograd.Function" in verdict.message.en


def _forwards(times: int) -> int:
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)).double()

    def fn(model, x):
        return [model(x) for _ in range(times)]

    objs = {"model": model, "x": torch.randn(4, 2, dtype=torch.float64)}
    seen = _run(fn, objs, ["model", "x"], {"model": ["forward_calls", "value"]})
    assert "0.weight" in seen["model"]  # the other facets are observed as before
    return seen[probe.COUNTS]["model"]


def test_forward_calls_count_the_passes_of_the_call_only():
    assert [_forwards(n) for n in (0, 1, 2)] == [0, 1, 2]
    assert not torch.nn.modules.module._global_forward_pre_hooks  # the hook is gone
    assert counted.judge("f", {"model": 1}, {"model": 1}) is None
    verdict = counted.judge("f", {"model": 2}, {"model": 1})
    assert verdict.status == "failed" and "2" in verdict.message.en


def test_a_layer_by_layer_forward_is_one_pass():
    model = nn.Sequential(nn.Linear(2, 2), nn.Tanh())

    def by_hand(model, x):
        return model[1](model[0](x))

    objs = {"model": model, "x": torch.randn(3, 2)}
    seen = _run(by_hand, objs, ["model", "x"], {"model": ["forward_calls"]})
    assert seen[probe.COUNTS] == {"model": 1} and "model" not in seen


def _jacobian(how: str):
    """g(x) = tanh(x)·Σx's Jacobian: one grad per row, one backward per row, all rows in one
    batched grad, or the formula (no backward)."""

    def fn(x):
        xx = x.detach().clone().requires_grad_(True)
        y = torch.tanh(xx) * xx.sum()
        eye = torch.eye(len(x), dtype=x.dtype)
        if how == "grad":
            return torch.stack([torch.autograd.grad(y, xx, e, retain_graph=True)[0] for e in eye])
        if how == "backward":
            rows = []
            for e in eye:
                y.backward(e, retain_graph=True)
                rows.append(xx.grad.clone())
                xx.grad = None
            return torch.stack(rows)
        if how == "batched":
            return torch.autograd.grad(y, xx, eye, is_grads_batched=True)[0]
        t = torch.tanh(x)
        return torch.diag(1 - t**2) * x.sum() + t[:, None] * torch.ones(len(x), dtype=x.dtype)

    return fn


def _backwards(how: str, n: int = 4) -> dict:
    objs = {"x": torch.randn(n, dtype=torch.float64)}
    seen = _run(_jacobian(how), objs, ["x"], {"result": ["backward_calls", "value"]})
    assert seen["result"]["value"].shape == (n, n)  # the other facets are observed as before
    return seen[probe.COUNTS]


def test_backward_calls_count_the_engine_runs_of_the_call_only():
    engine = torch.autograd.variable.Variable._execution_engine
    seen = {how: _backwards(how) for how in ("grad", "backward", "batched", "formula")}
    assert seen == {
        "grad": {"result": {"backward_calls": 4}},
        "backward": {"result": {"backward_calls": 4}},
        "batched": {"result": {"backward_calls": 1}},
        "formula": {"result": {"backward_calls": 0}},
    }
    assert torch.autograd.variable.Variable._execution_engine is engine  # put back


def test_backward_calls_judged_against_the_reference():
    want = _backwards("grad")
    assert counted.judge("f", _backwards("backward"), want) is None
    for how, runs in (("batched", "1"), ("formula", "0")):
        verdict = counted.judge("f", _backwards(how), want)
        assert verdict.status == "failed"
        assert (
            f"ran backward {runs} time(s)" in verdict.message.en
            and "expected 4" in verdict.message.en
        )
    verdict = counted.judge("f", {"result": None}, want)  # nothing seen is no pass
    assert verdict.status == "failed" and "?" in verdict.message.en


def test_backward_calls_put_the_engine_back_when_the_call_raises():
    engine = torch.autograd.variable.Variable._execution_engine

    def fails(x):
        xx = x.clone().requires_grad_(True)
        (xx * 2).sum().backward()
        raise ValueError("after one backward")

    objs = {"x": torch.randn(3, dtype=torch.float64)}
    plan = {"observe": {"result": ["backward_calls"], "exception": []}, "call": ["x"]}
    seen = probe.run(fails, None, objs, plan, probe.local_guard)
    assert seen["exception"] == "ValueError" and seen[probe.COUNTS] == {
        "result": {"backward_calls": 1}
    }
    assert torch.autograd.variable.Variable._execution_engine is engine

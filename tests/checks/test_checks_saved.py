"""saved_tensors: the result comes from a custom Function that saves with save_for_backward."""

from __future__ import annotations

import pytest
import sigmoids
import torch
from conftest import EXERCISES
from inprocess import judge

from grader.loader import specfile

INPUTS = {"x": torch.tensor([-1.0, 2.0], dtype=torch.float64)}


@pytest.fixture(scope="module")
def saved():
    ex = specfile.load(EXERCISES / "custom_sigmoid" / "exercise.yaml")
    return ex, next(c for c in ex.checks if c.kind == "saved_tensors")


def verdict(saved, fn):
    ex, check = saved
    return judge(ex, check, INPUTS, sigmoid=fn)


def test_saved_with_save_for_backward_passes(saved):
    assert verdict(saved, sigmoids.GOOD) is None


def test_stashed_on_ctx_names_the_attributes_and_why(saved):
    stashed = sigmoids.function(sigmoids.plain, sigmoids.right, save=False)
    v = verdict(saved, stashed)
    assert "(ctx.x, ctx.y)" in v.message.en and "in-place" in v.message.en


def test_torch_ops_instead_of_a_function_say_apply(saved):
    v = verdict(saved, sigmoids.plain)
    # 1 / (1 + e) is computed as reciprocal times 1
    assert "MulBackward0" in v.message.en and ".apply(...)" in v.message.en


def test_no_grad_fn_at_all(saved):
    v = verdict(saved, lambda x: sigmoids.GOOD(x).detach())
    assert "without grad_fn" in v.message.en


def test_nothing_saved(saved):
    class Sigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return sigmoids.plain(x)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    v = verdict(saved, Sigmoid.apply)
    assert "saved 0 tensor(s)" in v.message.en

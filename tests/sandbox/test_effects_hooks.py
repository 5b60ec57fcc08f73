"""Hooks are part of the caller's objects: a hook a call leaves on a tensor or module it was given
is a change (sandbox.probes.effects), one it removes again is not."""

from __future__ import annotations

import torch
from torch import nn

from grader.sandbox.probes import effects


def _objects():
    torch.manual_seed(0)
    return {"w": torch.randn(3, requires_grad=True), "model": nn.Linear(2, 2)}


def test_a_tensor_hook_left_behind_is_a_change():
    objs = _objects()
    before = effects.snapshot(objs)
    torch.Tensor.register_hook(objs["w"], lambda g: g * 2)
    assert effects.changes(before) == {"w": ["hook"]}


def test_a_module_or_parameter_hook_left_behind_is_a_change():
    objs = _objects()
    before = effects.snapshot(objs)
    objs["model"].register_forward_hook(lambda m, i, o: None)
    objs["model"].weight.register_post_accumulate_grad_hook(lambda p: None)
    assert effects.changes(before) == {"model": ["hook"], "model.weight": ["hook"]}


def test_hooks_removed_before_returning_are_no_change():
    objs = _objects()
    before = effects.snapshot(objs)
    handles = [
        objs["w"].register_hook(lambda g: g),
        objs["model"].register_full_backward_hook(lambda m, gi, go: None),
        objs["model"].register_forward_pre_hook(lambda m, i: None),
    ]
    for h in handles:
        h.remove()
    assert effects.changes(before) == {}

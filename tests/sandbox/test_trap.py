"""Tampering with torch or with the grader's code in a worker is seen, after any call."""

from __future__ import annotations

import pytest
import torch

from grader.common import wire
from grader.sandbox import trap


def _swap_function(monkeypatch):
    monkeypatch.setattr(wire, "tensor_bytes", lambda t: b"")


def _swap_code(monkeypatch):
    monkeypatch.setattr(
        wire.Decoder.value, "__code__", (lambda self, node, depth=0: node).__code__
    )


def _swap_method(monkeypatch):
    monkeypatch.setattr(wire.Decoder, "tensor", lambda self, i: None)


def _swap_class(monkeypatch):
    monkeypatch.setattr(wire, "Decoder", type("Decoder", (), {}))


def _swap_torch(monkeypatch):
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)


def _swap_torch_module(monkeypatch):
    monkeypatch.setattr(torch, "autograd", type(torch)("autograd"))


def _drop_module(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "grader.common.wire")


@pytest.mark.parametrize(
    "swap, name",
    [
        (_swap_function, "grader.common.wire.tensor_bytes"),
        (_swap_code, "grader.common.wire.Decoder.value"),
        (_swap_method, "grader.common.wire.Decoder.tensor"),
        (_swap_class, "grader.common.wire.Decoder"),
        (_swap_torch, "torch.allclose"),
        (_swap_torch_module, "torch.autograd.grad"),
        (_drop_module, "grader.common.wire.recv"),
    ],
)
def test_a_swap_is_named_and_undoing_it_clears_it(monkeypatch, swap, name):
    before = trap.snapshot(rescan=True)
    assert trap.tampered(before) == []
    with monkeypatch.context() as m:
        swap(m)
        assert name in trap.tampered(before)
        assert trap.tampered(dict(before)) == trap.tampered(before)  # the walk agrees
    assert trap.tampered(before) == []

"""What probes report: subclasses of tuple/list/dict as the plain types, tensors kept on ctx in
containers."""

from __future__ import annotations

import socket
from collections import OrderedDict, namedtuple

import torch

from grader.common import wire
from grader.sandbox.probes import describe, graph_facts


def _decoded(obj):
    enc = wire.Encoder()
    node = describe(enc, obj)
    a, b = socket.socketpair()
    with a, b:
        wire.send(a, {"v": node}, enc)
        header, blob = wire.recv(b)
    return wire.Decoder(header, blob).value(header["v"])


def test_namedtuple_and_ordereddict_travel_as_tuple_and_dict():
    Pair = namedtuple("Pair", "dx dy")
    back = _decoded((Pair(torch.ones(2), torch.zeros(2)), OrderedDict(w=torch.ones(1))))
    pair, grads = back
    assert isinstance(pair, tuple) and len(pair) == 2 and torch.equal(pair[0].data, torch.ones(2))
    assert isinstance(grads, dict) and list(grads) == ["w"]


def test_a_subclass_cannot_change_what_is_read():
    class Liar(tuple):
        def __iter__(self):  # student code: never called
            return iter(("fake",))

    assert _decoded(Liar((1, 2))) == (1, 2)


class _Stash(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.kept = {"y": [x * 2]}  # a tensor inside a dict inside a list
        ctx.count = 3
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_tensors_on_ctx_are_found_inside_containers():
    out = _Stash.apply(torch.ones(2, requires_grad=True))
    assert graph_facts(out)["ctx_tensors"] == ["kept"]

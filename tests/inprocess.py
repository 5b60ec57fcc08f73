"""Run a kind's probe in this process on a stand-in module and judge the reply, as the grader
would after a worker's round trip (encoded and decoded through the wire format)."""

from __future__ import annotations

import types
from pathlib import Path

from grader.checks import KINDS
from grader.checks.base import Judging
from grader.common import wire
from grader.grading.session import DATA_KEYS
from grader.sandbox import probes
from grader.sandbox.trap import Trap, snapshot
from grader.specs import strategies

EXERCISES = Path(__file__).resolve().parents[1] / "exercises"
# The course's exercise plugins bring probes of their own: a worker's template imports them.
for _folder in sorted(EXERCISES.glob("*/plugin")):
    probes.load_plugin([_folder.parent.name, str(_folder)])


def probe(check, inputs: dict, **functions) -> tuple[dict, dict]:
    """(reply header, decoded values) for one example, with `functions` as the student's file."""
    kind = KINDS[check.kind]
    held = inputs.get(strategies.STATE) or {}  # a starting state, as the session sends it
    enc = wire.Encoder({id(inputs[name]): grad for name, grad in held.items()})
    header = {
        "op": "call",
        "fn": check.function,
        "args": [enc.value(inputs[a.name]) for a in check.args],
        "forbid": [],
    }
    header.update(kind.request(check, inputs, enc))
    header = dict(header, tensors=enc.tensors)
    ctx = probes.Context(
        module=types.SimpleNamespace(**functions),
        trap=Trap(),
        scratch="/nonexistent",
        before=snapshot(),
    )
    out = wire.Encoder()
    reply = probes.handle(ctx, header, wire.Decoder(header, b"".join(enc.blobs), states=True), out)
    dec = wire.Decoder(dict(reply, tensors=out.tensors), b"".join(out.blobs))
    values = {key: dec.value(reply[key]) if key in reply else None for key in DATA_KEYS}
    values["graph"] = reply.get("graph") or {}
    return reply, values


def judge(exercise, check, inputs: dict, **functions):
    """The kind's verdict (None: passed) for one example."""
    reply, values = probe(check, inputs, **functions)
    assert reply["ok"] is True, reply
    return KINDS[check.kind].judge(Judging(exercise, check, inputs), reply, values)


def verdict(exercise, check, inputs: dict, **functions):
    """The grader's whole verdict on one example (None: passed): what every kind shares, the
    kind's own judging and the side effects judged by default (grader.grading.judge)."""
    from grader.grading.judge import judged

    reply, values = probe(check, inputs, **functions)
    return judged(exercise, check, KINDS[check.kind], inputs, reply, values)

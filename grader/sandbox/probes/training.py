"""The train probe: run the grader's fixed training loop with the student's functions.

The loop, the data and the initial weights are grader code (grader.training); only the
functions named in the request come from the student's file. The probe reports the trace
(losses, which gradients and parameters stayed finite) and the grader judges it.
"""

from __future__ import annotations

import torch

from ... import training, wire
from ..trap import tampered
from . import Context, Phase, _autograd_grad, lookup, student_code


def train(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    """Request: setup (grader.training.Setup fields), functions {slot: entry point} for the
    slots log_softmax and norm. Reply data: losses, grads_finite, params_finite, max_logit."""
    setup = training.Setup.from_options(h["setup"])
    slots = {slot: lookup(ctx.module, name) for slot, name in h["functions"].items()}
    with student_code(ctx, h.get("forbid", []), Phase()):
        trace = training.run(setup, slots["log_softmax"], slots["norm"], grad=_autograd_grad)
    data = {
        "losses": enc.add_tensor(torch.tensor(trace.losses, dtype=torch.float64)),
        "max_logit": enc.add_tensor(torch.tensor(trace.max_logit, dtype=torch.float64)),
        "grads_finite": enc.add_tensor(torch.tensor(trace.grads_finite, dtype=torch.bool)),
        "params_finite": enc.add_tensor(torch.tensor(trace.params_finite, dtype=torch.bool)),
    }
    return {"ok": True, "data": {"D": [[k, v] for k, v in data.items()]},
            "tampered": tampered(ctx.before)}


PROBES = {"train": train}

"""nan_debugging's probes, run by the worker.

anomaly: hand a student's NaN-hunting tool a function built from a trusted recipe. The function
comes from the plugin's recipes.py (a list of op names sent as data), never from the student's
file. The probe runs the tool once per requested initial anomaly-detection setting and reports
what it returned and the setting it left behind; the grader asks torch for the truth.

train: run the fixed training loop (the plugin's training.py) with the student's functions;
only the functions named in the request come from the student's file. The probe reports the
trace (losses, which gradients and parameters stayed finite) and the grader judges it.
"""

from __future__ import annotations

import torch

from . import recipes, training
from grader.common import wire
from grader.sandbox.trap import tampered
from grader.sandbox.probes import (
    Context,
    Phase,
    _autograd_grad,
    describe,
    lookup,
    plain,
    student_code,
)

# Captured when the template imports this module, before any student code can rebind them.
_is_enabled = torch.is_anomaly_enabled
_is_check_nan = torch.is_anomaly_check_nan_enabled
_set_enabled = torch.set_anomaly_enabled

MAX_NAME = 200


def anomaly(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    """Request: fn, recipe, args (tensors), initial (a list of bools). Reply data: one
    {result, initial, after, after_check_nan} per initial setting."""
    tool = lookup(ctx.module, h["fn"])
    fn = recipes.build(h["recipe"])
    inputs = [plain(dec.value(a).data) for a in h["args"]]
    runs = []
    try:
        for initial in h.get("initial", [False]):
            _set_enabled(bool(initial), True)
            # Fresh leaves each run: the tool may call backward and leave .grad behind.
            leaves = [t.clone().requires_grad_(True) for t in inputs]
            with student_code(ctx, h.get("forbid", []), Phase()):
                result = tool(fn, *leaves)
                # Read before the guard sets every global mode back (sandbox.probes.MODES).
                after, after_nan = bool(_is_enabled()), bool(_is_check_nan())
            if type(result) is str:
                result = result[:MAX_NAME]
            runs.append({"result": describe(enc, result), "initial": bool(initial),
                         "after": after, "after_check_nan": after_nan})
    finally:
        # Later probes in this worker must run with anomaly detection off, whatever the tool did.
        _set_enabled(False, True)
    return {"ok": True, "data": {"L": [{"D": [[k, v] for k, v in run.items()]}
                                       for run in runs]},
            "tampered": tampered(ctx.before)}


def train(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    """Request: setup (training.Setup fields), functions {slot: entry point} for the
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


PROBES = {"anomaly": anomaly, "train": train}

"""The critic probe: call fn(critic, *args) with a critic built here from a trusted recipe.

The grader sends the recipe (JSON) and the weights (tensors); the plugin's critics.py builds the module,
so the student's file never chooses the critic. The probe reports what it saw and judges
nothing: the returned value, optionally the gradients of that value with respect to the
critic's parameters (taken after the call, with the torch.autograd.grad captured before the
student's import), the parameters' .grad, values and requires_grad after the call, and the
arguments after the call.
"""

from __future__ import annotations

import torch

from . import critics
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
from grader.sandbox.probes.call import _plain_arg, describe_arg, versions_of


def critic_call(ctx: Context, h: dict, dec: wire.Decoder, enc: wire.Encoder) -> dict:
    fn = lookup(ctx.module, h["fn"])
    args = [_plain_arg(dec.value(a)) for a in h["args"]]
    for i in h.get("grad_args", []):
        args[i].requires_grad_(True)
    spec = h["critic"]
    weights = [t.data for t in dec.value(spec["weights"])]
    net = critics.build(critics.Recipe.from_dict(spec["recipe"]), weights, weights[0].dtype)
    params = list(net.parameters())
    for i in spec.get("frozen") or []:
        params[i].requires_grad_(False)
    net.train(spec.get("training", True) is not False)
    if spec.get("preset_grads") is not None:
        # The caller's own gradients, as in a training step that accumulates the critic loss.
        for p, g in zip(params, dec.value(spec["preset_grads"])):
            p.grad = g.data.clone()
    reply: dict = {"ok": True}
    phase = Phase()
    versions = [versions_of(a) for a in args]
    with student_code(ctx, h.get("forbid", []), phase):
        out = fn(net, *args)
        data = {"grads_after": [None if p.grad is None else plain(p.grad).clone()
                                for p in params],
                "params_after": [p.detach().clone() for p in params],
                "params_requires_grad": [bool(p.requires_grad) for p in params],
                "training_after": [bool(m.training) for m in net.modules()]}
        if h.get("param_grads"):
            phase.name = "backward"
            reply["grads"] = describe(enc, param_grads(out, params))
    reply["outs"] = {"L": [describe(enc, out)]}
    reply["data"] = describe(enc, data)
    reply["args_after"] = {"L": [describe_arg(enc, a, v) for a, v in zip(args, versions)]}
    reply["tampered"] = tampered(ctx.before)
    return reply


def param_grads(out, params) -> tuple | None:
    """d out / d parameter for each parameter (None where out does not depend on it); None
    when out is not a tensor that requires grad, so there is no graph to differentiate."""
    if not isinstance(out, torch.Tensor) or not out.requires_grad:
        return None
    ones = torch.ones_like(plain(out))
    return tuple(_autograd_grad(out, params, grad_outputs=ones, allow_unused=True))


PROBES = {"critic_call": critic_call}

"""One example's reply judged: the verdicts every kind shares (a forbidden call, an exception,
tampering), then the kind's own; and the simplest input that shows a failure."""

from __future__ import annotations

from dataclasses import replace

import torch

from grader.checks import effects
from grader.checks.base import Judging, NotRecorded, Verdict
from grader.checks.messages import (
    both,
    forbidden,
    forbidden_api,
    raised,
    raised_hint,
    tampered,
)
from grader.common.errors import GraderError
from grader.sandbox.workers import WorkerLost
from grader.specs.model import Check, Exercise
from grader.specs.refs import SpecBug


def error_dict(raw) -> dict:
    """A worker's description of an exception, its fields cut to size and of plain types."""
    raw = raw if isinstance(raw, dict) else {}
    tb = raw.get("traceback") if isinstance(raw.get("traceback"), list) else []
    error = {
        "type": str(raw.get("type", "Exception"))[:100],
        "message": str(raw.get("message", ""))[:2000],
        "traceback": [str(line)[:300] for line in tb[:40]],
    }
    peak = raw.get("peak_bytes")  # a MemoryError's size reached (shown, never judged)
    if type(peak) is int and 0 < peak < 2**50:
        error["peak_bytes"] = peak
    return error


def pre_judge(check: Check, reply: dict) -> Verdict | None:
    """Verdicts every kind shares: forbidden calls, exceptions, tampering."""
    fn = check.function
    if reply.get("ok") is not True:
        if reply.get("forbidden"):
            return Verdict(
                "failed",
                forbidden(str(reply["forbidden"]), fn),
                cause=f"forbidden:{forbidden_api(str(reply['forbidden']))[:200]}:{fn}",
            )
        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        error = error_dict(error)
        return Verdict(
            "error",
            raised(error, fn, str(reply.get("phase"))),
            error["traceback"],
            hint=raised_hint(error),
            cause=f"raised:{error['type']}:{fn}",
        )
    if reply.get("tampered"):
        return Verdict("failed", tampered([str(n) for n in reply["tampered"]][:10]))
    return None


def shared(framed: Verdict, verdict: Verdict) -> Verdict:
    """A shared verdict as a kind framed it, with the grader's cause kept: a kind adds what makes
    the example reproducible, but the cause ("raised:NotImplementedError:f") is what groups the
    checks one failure blocks, tells an unwritten function (progress.UNWRITTEN) and lets the
    verdict be kept (grading.verdicts); a frame that leaves it out loses none of that."""
    if framed.cause is None and verdict.cause is not None:
        framed = replace(framed, cause=verdict.cause)
    if framed.hint is None and verdict.hint is not None:  # (a raised error's own hint, too)
        framed = replace(framed, hint=verdict.hint)
    return framed


UNREADABLE = (TypeError, KeyError, IndexError, AttributeError, ValueError)
"""What a kind raises on a reply it cannot read (one that tampered code forged)."""


def judged(
    exercise: Exercise,
    check: Check,
    kind,
    inputs: dict,
    reply: dict,
    values: dict,
    memo: dict | None = None,
    recorded: bool = False,
) -> Verdict | None:
    """The verdict on one example's reply: None when it passes. recorded: memo is all there is
    (a students' release)."""
    ctx = Judging(exercise, check, inputs, memo=memo, recorded=recorded)
    verdict = pre_judge(check, reply)
    if verdict is not None:
        return shared(kind.frame(ctx, verdict), verdict)
    try:
        return kind.judge(ctx, reply, values) or effects.after_call(ctx, kind, reply, values)
    except (SpecBug, NotRecorded):
        raise
    except UNREADABLE as exc:
        # Well-behaved workers always send the probe's fields: a reply this kind cannot
        # read came from code that tampered with the worker.
        return Verdict(
            "error",
            both(
                "Data dari proses pekerja tidak dapat dibaca ({e}); apakah kodenya mengubah "
                "grader atau torch?",
                "The worker's data cannot be read ({e}); does the code "
                "tamper with the grader or torch?",
                e=f"{type(exc).__name__}: {exc}"[:200],
            ),
        )


# The simplest input that shows a failure which does not depend on the values (a wrong shape,
# a wrong dtype, an exception any input raises): the failing example's tensors filled with ones
# (shapes, dtypes, layouts and requires_grad kept) and the call made again; where it fails the
# same way (status, cause and message), that input is what the report shows, since whatever
# the shrink left in the values (4.868e-67, 2.2e-308) has nothing to do with the mistake. The
# verdict is never changed: only which failing input is shown.


def filled(inputs: dict) -> dict | None:
    """The inputs with every floating tensor's values set to 1 (None: there is none, or it
    already holds only ones: nothing simpler to show)."""
    out, changed = dict(inputs), False
    for name, v in inputs.items():
        if not isinstance(v, torch.Tensor) or not v.dtype.is_floating_point or v.numel() == 0:
            continue
        if bool((v.detach() == 1).all()):
            continue
        one = v.detach().clone().fill_(1.0)  # clone keeps the strides: the layout stays
        out[name] = one.requires_grad_(v.requires_grad)
        changed = True
    return out if changed else None


def same_failure(a: Verdict | None, b: Verdict) -> bool:
    return (
        a is not None
        and a.status == b.status
        and a.cause == b.cause
        and a.message.en == b.message.en
        and a.message.id == b.message.id
    )


def simplest(
    session, exercise, check, kind, verdict: Verdict, inputs: dict, recorded: bool = False
) -> dict:
    """The input to show for `verdict`, found on `inputs`: the same input filled with ones where
    the call fails the same way on it, else `inputs`. A kind that needs reference values for
    the new input where none can be had (a students' release) keeps `inputs`."""
    simple = filled(inputs)
    if simple is None:
        return inputs
    try:
        reply, values = session.call(check, kind, simple)
        again = judged(exercise, check, kind, simple, reply, values, {}, recorded=recorded)
    except WorkerLost:  # (a timeout, say: the drawn input is the one that showed the failure)
        return inputs
    except (
        SpecBug,
        NotRecorded,
        GraderError,
        ImportError,
        ArithmeticError,
        LookupError,
        TypeError,
        ValueError,
    ):
        return inputs  # no reference for it (a release), or one the reference cannot take
    return simple if same_failure(again, verdict) else inputs

"""One example's reply judged: the verdicts every kind shares (a forbidden call, an exception,
tampering), then the kind's own."""

from __future__ import annotations

from dataclasses import replace

from grader.checks import effects
from grader.checks.base import Judging, NotRecorded, Verdict
from grader.checks.messages import both, forbidden, forbidden_api, raised, tampered
from grader.specs.model import Check, Exercise
from grader.specs.refs import SpecBug


def error_dict(raw) -> dict:
    """A worker's description of an exception, its fields cut to size and of plain types."""
    raw = raw if isinstance(raw, dict) else {}
    tb = raw.get("traceback") if isinstance(raw.get("traceback"), list) else []
    return {
        "type": str(raw.get("type", "Exception"))[:100],
        "message": str(raw.get("message", ""))[:2000],
        "traceback": [str(line)[:300] for line in tb[:40]],
    }


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
        return replace(framed, cause=verdict.cause)
    return framed


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
    except (TypeError, KeyError, IndexError, AttributeError, ValueError) as exc:
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

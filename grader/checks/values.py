"""Kinds that compare returned values with the reference: value, shape_dtype, finite, repeatable."""

from __future__ import annotations

import torch

from grader.checks.base import Judging, Kind, Verdict
from grader.checks.compare import compare
from grader.checks.messages import both, mismatch
from grader.checks.named import diagnose
from grader.specs import refs


def reference_value(ctx: Judging):
    """The value (or autograd gradient) of the check's reference at these inputs."""
    return ctx.remember(
        "want", lambda: refs.expected(ctx.check.expect, ctx.exercise.references, ctx.inputs)
    )


class Value(Kind):
    """The result equals the reference (value or autograd gradient) within the dtype tolerance."""

    name = "value"
    OPTIONS = {"rtol": float, "atol": float}
    starting_states = True

    def validate(self, check):
        super().validate(check)
        if check.expect is None:
            raise check.node.error("kind", f"checks of kind {self.name} need `expect:`")

    def prepare(self, ctx):
        reference_value(ctx)

    def candidates(self, ctx, reply, values):
        """A constant factor (diagnose.factor_candidates), such as a mean over the rows only."""
        return diagnose.factor_candidates(values["outs"][0], reference_value(ctx))

    def judge(self, ctx: Judging, reply, values):
        want = reference_value(ctx)
        found = compare(values["outs"][0], want, tolerances=ctx.tolerances)
        if not found:
            return None
        text = mismatch(found, ctx.check.function)
        named = diagnose.factor_named(values["outs"][0], want, ctx.confirmed)
        if named is None:
            return Verdict("failed", text)
        return Verdict("failed", both("{t} {n}", "{t} {n}", t=text, n=named[1]), mistake=named[0])


class ShapeDtype(Value):
    """The result has the reference's structure, shapes and dtypes (values not compared)."""

    name = "shape_dtype"
    OPTIONS = {}
    constraint = True
    candidates = Kind.candidates

    def judge(self, ctx, reply, values):
        want = reference_value(ctx)
        found = compare(values["outs"][0], want, values=False)
        return Verdict("failed", mismatch(found, ctx.check.function)) if found else None


class Finite(Value):
    """Wherever the reference is finite, so is the result (inputs drawn at the extremes); and
    the values are compared there too, so that a clamp or a finite wrong value fails as well
    (the non-finite elements are reported first, with their own explanation)."""

    name = "finite"
    OPTIONS = {"rtol": float, "atol": float}
    constraint = True
    candidates = Kind.candidates

    def judge(self, ctx, reply, values):
        want = reference_value(ctx)
        found = compare(values["outs"][0], want, values=False)
        if found:
            return Verdict("failed", mismatch(found, ctx.check.function))
        for where, got, ref in _pairs(values["outs"][0], want, "result"):
            bad = ~torch.isfinite(got.data) & torch.isfinite(ref)
            if bad.any():
                i = int(bad.reshape(-1).nonzero()[0])
                idx = tuple(int(k) for k in torch.unravel_index(torch.tensor(i), got.data.shape))
                return Verdict(
                    "failed",
                    both(
                        "{fn}(...) → {w}{idx} = {got}, padahal torch memberi nilai hingga {want}. "
                        "Hindari overflow (misalnya exp dari bilangan besar).",
                        "{fn}(...) → {w}{idx} = {got}, while torch gives the finite {want}. "
                        "Avoid overflow (exp of a large number, say).",
                        fn=ctx.check.function,
                        w=where,
                        idx=list(idx) if idx else "",
                        got=got.data.reshape(-1)[i].item(),
                        want=ref.reshape(-1)[i].item(),
                    ),
                )
        found = compare(values["outs"][0], want, tolerances=ctx.tolerances)
        return Verdict("failed", mismatch(found, ctx.check.function)) if found else None


class Repeatable(Value):
    """Called twice on the same tensor objects, each call returns the reference."""

    name = "repeatable"
    OPTIONS = {"repeat": int}
    candidates = Kind.candidates

    def request(self, check, inputs, enc):
        return dict(
            super().request(check, inputs, enc), repeat=int(check.options.get("repeat", 2))
        )

    def judge(self, ctx, reply, values):
        want = reference_value(ctx)
        for n, out in enumerate(values["outs"], start=1):
            found = compare(out, want, tolerances=ctx.tolerances)
            if found:
                base = mismatch(found, ctx.check.function)
                if n == 1:
                    return Verdict("failed", base)
                return Verdict(
                    "failed",
                    both(
                        "Panggilan ke-{n} pada tensor yang sama memberi hasil lain: gradien "
                        "terakumulasi (.grad dari panggilan sebelumnya tidak di-nol-kan, atau leaf "
                        "dipakai ulang). {b}",
                        "Call number {n} on the same tensor gives a different result: gradients "
                        "accumulate (a previous call's .grad was not reset, or a leaf is reused). "
                        "{b}",
                        n=n,
                        b=base,
                    ),
                    mistake=diagnose.GRAD_NOT_RESET,
                )
        return None


def _pairs(actual, expected, where):
    if isinstance(expected, torch.Tensor):
        yield where, actual, expected
    elif isinstance(expected, tuple):
        for i, (a, e) in enumerate(zip(actual, expected)):
            yield from _pairs(a, e, f"{where}[{i}]")
    elif isinstance(expected, dict):
        for k, e in expected.items():
            yield from _pairs(actual[k], e, f'{where}["{k}"]')


KINDS = [Value(), ShapeDtype(), Finite(), Repeatable()]

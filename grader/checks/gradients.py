"""Kinds that run backward through the student's function: vjp and vjp_finite.

The worker calls the entry point on leaves that require grad and runs autograd with the upstream
gradient the grader drew (the `upstream:` argument of `expect`, ones without it); the grader
compares the gradients with autograd's vector-Jacobian product of the reference.
"""

from __future__ import annotations

import dataclasses

import torch

from grader.checks.base import Judging, Kind, Mistake, Verdict
from grader.checks.compare import compare
from grader.checks.messages import both, mismatch
from grader.specs import refs

IGNORES_UPSTREAM = Mistake(
    "ignores_grad_output",
    both(
        "backward mengabaikan grad_output (aturan rantai)",
        "backward ignores grad_output (the chain rule)",
    ),
)


class Vjp(Kind):
    """Gradients through the student's backward equal the reference's, for any upstream."""

    name = "vjp"
    OPTIONS = {"rtol": float, "atol": float}
    starting_states = True

    def validate(self, check):
        super().validate(check)
        expect = check.expect
        if expect is None or not expect.grad:
            raise check.node.error(
                "expect", f"checks of kind {self.name} need `expect: {{grad_of: REF, wrt: ...}}`"
            )
        if expect.upstream in wrt_names(expect.wrt):
            raise check.node.error(
                "expect",
                f"the upstream gradient {expect.upstream!r} cannot also be differentiated",
            )

    @staticmethod
    def fn_args(check) -> list:
        """The entry point's arguments: every check argument but the upstream gradient."""
        return [a for a in check.args if a.name != check.expect.upstream]

    def request(self, check, inputs, enc):
        args = self.fn_args(check)
        index = {a.name: i for i, a in enumerate(args)}
        up = check.expect.upstream
        return {
            "args": [enc.value(inputs[a.name]) for a in args],
            "grad_args": [index[n] for n in wrt_names(check.expect.wrt)],
            "backward": {"upstream": enc.value(inputs[up]) if up else None},
        }

    def prepare(self, ctx):
        self._by_name(ctx, ctx.check.expect)
        if ctx.check.expect.upstream:  # what _ignores_upstream compares with
            self._by_name(ctx, dataclasses.replace(ctx.check.expect, upstream=None))

    def judge(self, ctx: Judging, reply, values):
        changed = upstream_changed(ctx, reply)
        if changed:
            return changed
        want = self._by_name(ctx, ctx.check.expect)
        got, missing = self._grads(ctx, values)
        if missing:
            return missing
        for name, expected in want.items():
            found = compare(got[name], expected, tolerances=ctx.tolerances, where=f"{name}.grad")
            if found:
                return self._explain(ctx, name, got[name], found)
        return None

    def _by_name(self, ctx, expect) -> dict:
        """The reference gradients by argument name."""
        names = wrt_names(expect.wrt)
        flat = dataclasses.replace(expect, wrt=tuple(names))
        return ctx.remember(
            "by_name:" + repr(flat),
            lambda: dict(zip(names, refs.expected(flat, ctx.exercise.references, ctx.inputs))),
        )

    def _grads(self, ctx, values):
        names = wrt_names(ctx.check.expect.wrt)
        grads = values.get("grads")
        grads = list(grads) if isinstance(grads, (list, tuple)) else []
        got = dict(zip(names, grads + [None] * (len(names) - len(grads))))
        for name in names:
            if got[name] is None:
                return got, Verdict(
                    "failed",
                    both(
                        "Tidak ada gradien untuk `{a}` setelah backward melalui {fn}: backward "
                        "mengembalikan None untuk input itu. Kembalikan gradiennya (tensor dengan "
                        "shape seperti `{a}`), sebanyak input forward.",
                        "No gradient for `{a}` after backward through {fn}: backward returned None "
                        "for that input. Return its gradient (a tensor shaped like `{a}`), one per "
                        "input of forward.",
                        a=name,
                        fn=ctx.check.function,
                    ),
                )
        return got, None

    def _explain(self, ctx, name, got, found) -> Verdict:
        check = ctx.check
        up = check.expect.upstream
        base = mismatch(found, check.function)
        if up and found.kind in ("value", "nonfinite") and self._ignores_upstream(ctx, name, got):
            text = both(
                # the mistake and the idea it misses, not the fix (the check's hint says that,
                # kept back below the `recipe` feedback level)
                "backward mengabaikan grad_output (aturan rantai): gradien `{a}` sama dengan "
                "hasil untuk upstream berisi satu semua, padahal upstream-nya `{u}`. {b}",
                "backward ignores grad_output (the chain rule): the gradient of `{a}` equals the "
                "one for an all-ones upstream, while the upstream is `{u}`. {b}",
                a=name,
                u=up,
                b=base,
            )
            return Verdict("failed", text, mistake=IGNORES_UPSTREAM)
        text = both(
            "Gradien `{a}` lewat backward (grad_output = `{u}`) salah. {b}",
            "The gradient of `{a}` through backward (grad_output = `{u}`) is wrong. {b}",
            a=name,
            u=up or "ones",
            b=base,
        )
        return Verdict("failed", text)

    def _ignores_upstream(self, ctx, name, got) -> bool:
        upstream = ctx.inputs[ctx.check.expect.upstream]
        if upstream.numel() == 0 or bool((upstream == 1).all()):
            return False
        ones = self._by_name(ctx, dataclasses.replace(ctx.check.expect, upstream=None))[name]
        return compare(got, ones, tolerances=ctx.tolerances) is None


class VjpFinite(Vjp):
    """Wherever the reference gradient is finite, so is the student's (inputs at the extremes);
    there the gradients are compared too, after the non-finite elements are reported."""

    name = "vjp_finite"
    constraint = True

    def judge(self, ctx: Judging, reply, values):
        changed = upstream_changed(ctx, reply)
        if changed:
            return changed
        want = self._by_name(ctx, ctx.check.expect)
        got, missing = self._grads(ctx, values)
        if missing:
            return missing
        for name, expected in want.items():
            found = compare(got[name], expected, values=False, where=f"{name}.grad")
            if found:
                return self._explain(ctx, name, got[name], found)
            data = got[name].data
            bad = ~torch.isfinite(data) & torch.isfinite(expected)
            if bad.any():
                i = int(bad.reshape(-1).nonzero()[0])
                idx = [int(k) for k in torch.unravel_index(torch.tensor(i), data.shape)]
                x = {a.name: ctx.inputs[a.name] for a in self.fn_args(ctx.check)}
                at = ", ".join(
                    f"{n}{idx if idx else ''} = {t.reshape(-1)[i].item():.10g}"
                    for n, t in x.items()
                    if t.shape == data.shape
                )
                return Verdict(
                    "failed",
                    both(
                        "backward melalui {fn}: {a}.grad{idx} = {got} (di {at}), padahal gradien "
                        "torch di sana hingga: {want}. Hindari overflow di backward (exp dari "
                        "bilangan besar menjadi inf, lalu inf/inf atau 0·inf menjadi NaN).",
                        "backward through {fn}: {a}.grad{idx} = {got} (at {at}), while torch's "
                        "gradient there is the finite {want}. Avoid overflow in backward (exp of a "
                        "large number becomes inf, then inf/inf or 0·inf becomes NaN).",
                        fn=ctx.check.function,
                        a=name,
                        idx=idx if idx else "",
                        at=at or "-",
                        got=data.reshape(-1)[i].item(),
                        want=expected.reshape(-1)[i].item(),
                    ),
                )
        return super().judge(ctx, reply, values)


def upstream_changed(ctx: Judging, reply) -> Verdict | None:
    """A backward that wrote into grad_output (the worker saw its values or version move)."""
    if reply.get("upstream_changed") is not True:
        return None
    return Verdict(
        "failed",
        both(
            "backward melalui {fn} mengubah grad_output secara in-place (misalnya "
            "grad_output.mul_(...)). grad_output milik autograd dan bisa dipakai node lain; "
            "kembalikan tensor baru: grad_output * turunan_lokal.",
            "backward through {fn} changed grad_output in place (grad_output.mul_(...), say). "
            "grad_output belongs to autograd and other nodes may use it; return a new tensor: "
            "grad_output * local_derivative.",
            fn=ctx.check.function,
        ),
    )


def wrt_names(wrt) -> list[str]:
    if isinstance(wrt, str):
        return [wrt]
    if isinstance(wrt, tuple):
        return list(dict.fromkeys(wrt))
    if isinstance(wrt, dict):
        return list(dict.fromkeys(wrt.values()))
    return []


KINDS = [Vjp(), VjpFinite()]

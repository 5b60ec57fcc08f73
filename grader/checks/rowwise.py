"""Kinds for functions that work row by row over the last dimension (a log_softmax, a norm).

Their inputs mix in rows that break naive formulas (`rows:` patterns), and the gradient kind
compares a vector-Jacobian product taken through the student's function with autograd's, with an
allowance at a kink (a norm at the zero vector), where any bounded finite subgradient is right.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from grader.checks.base import Judging, Kind, Mistake, Verdict
from grader.checks.compare import compare
from grader.checks.gradients import upstream_changed
from grader.checks.messages import both, mismatch
from grader.checks.named import diagnose
from grader.checks.values import Value
from grader.common.wire import TensorFacts
from grader.specs import refs, strategies
from grader.specs.model import TensorArg, Text

_POWERS = st.integers(4, 9)
PATTERNS = ("zero", "tiny", "shifted")
"""zero: an all-zero row; tiny: entries of 1e-4 to 1e-9 times the row as drawn; shifted: the row
squeezed to a thousandth and moved by an offset drawn from the arg's range (rows far apart)."""


@st.composite
def with_rows(draw, exercise, check) -> dict:
    """The spec's inputs, with the `rows:` patterns mixed into the rows of one tensor arg."""
    inputs = draw(strategies.inputs(exercise, check))
    patterns = list(check.options.get("rows") or ())
    arg = check.arg(_rows_of(check))
    t = inputs[arg.name]
    if not patterns or t.dim() == 0 or t.numel() == 0:
        return inputs
    t = t.clone().contiguous()
    rows = t.view(-1, t.shape[-1])
    bound = max(abs(arg.low), abs(arg.high)) or 1.0
    for r in range(rows.shape[0]):
        pattern = draw(strategies.sampled(("as drawn", *patterns)))
        if pattern == "zero":
            rows[r] = 0
        elif pattern == "tiny":
            rows[r] = rows[r] / bound * 10.0 ** -draw(_POWERS)
        elif pattern == "shifted":
            offset = draw(strategies.floats(arg.low, arg.high, allow_nan=False))
            rows[r] = (rows[r] * 1e-3 + offset).clamp(arg.low, arg.high)
    if not inputs[arg.name].is_contiguous():  # keep the drawn layout (a transposed view)
        t = torch.empty_strided(t.shape, inputs[arg.name].stride(), dtype=t.dtype).copy_(t)
    return dict(inputs, **{arg.name: t})


def _rows_of(check) -> str:
    name = check.options.get("rows_of")
    if name is None:
        name = next(a.name for a in check.args if isinstance(a, TensorArg))
    return name


def _validate_rows(check) -> None:
    patterns = check.options.get("rows") or []
    for i, p in enumerate(patterns):
        if p not in PATTERNS:
            raise check.node.error(
                "rows", f"rows[{i}] = {p!r}: expected one of {', '.join(PATTERNS)}"
            )
    names = [a.name for a in check.args if isinstance(a, TensorArg)]
    if not names:
        raise check.node.error("args", f"checks of kind {check.kind} need a tensor arg")
    rows_of = check.options.get("rows_of")
    if rows_of is not None and rows_of not in names:
        raise check.node.error("rows_of", f"{rows_of!r} is not one of this check's tensor args")


class RowwiseValue(Value):
    """value, on inputs with the `rows:` patterns mixed in."""

    name = "rowwise_value"
    candidates = Kind.candidates
    OPTIONS = {"rtol": float, "atol": float, "rows": list, "rows_of": str}

    def validate(self, check):
        super().validate(check)
        _validate_rows(check)

    def strategy(self, exercise, check):
        return with_rows(exercise, check)

    def judge(self, ctx: Judging, reply, values):
        want = ctx.remember(
            "want", lambda: refs.expected(ctx.check.expect, ctx.exercise.references, ctx.inputs)
        )
        got = values["outs"][0]
        found = compare(got, want, tolerances=ctx.tolerances)
        if not found:
            return None
        text, mistake = named(found, ctx.check.function, got, want)
        return Verdict("failed", text, mistake=mistake)


def _reference_out(ctx: Judging):
    """The reference's own value (its rows' sizes tell where the kinks are)."""

    def compute():
        with torch.no_grad():
            return refs.evaluate(ctx.exercise.references[ctx.check.expect.of], ctx.inputs)

    return ctx.remember("reference_out", compute)


class RowwiseVjp(Value):
    """The gradient through the student's function, with the upstream gradient `upstream`,
    equals autograd's through the reference. With `smooth_from`, rows whose reference output is
    smaller than that in magnitude sit at a kink: there the gradient only has to be finite and
    (with `lipschitz`) no longer than lipschitz · |upstream| (a subgradient). Rows map to output
    elements, so this applies to reductions over the last dimension."""

    name = "rowwise_vjp"
    candidates = Kind.candidates
    OPTIONS = {
        "rtol": float,
        "atol": float,
        "rows": list,
        "rows_of": str,
        "smooth_from": float,
        "lipschitz": float,
    }

    def validate(self, check):
        super().validate(check)
        _validate_rows(check)
        e = check.expect
        if not e.grad or not isinstance(e.wrt, str) or e.upstream is None:
            raise check.node.error(
                "expect",
                "rowwise_vjp needs `expect: {grad_of: REF, wrt: "
                "ARG, upstream: ARG}` with one wrt argument",
            )
        if not check.arg(e.wrt).requires_grad:
            raise check.node.error(
                "args",
                f"{e.wrt}: add `requires_grad: true`, the argument "
                "the gradient is taken with respect to",
            )

    def prepare(self, ctx):
        super().prepare(ctx)
        if "smooth_from" in ctx.check.options:
            _reference_out(ctx)

    def strategy(self, exercise, check):
        return with_rows(exercise, check)

    def request(self, check, inputs, enc):
        up = check.expect.upstream
        args = [a for a in check.args if a.name != up]
        return {
            "args": [enc.value(inputs[a.name]) for a in args],
            "grad_args": [[a.name for a in args].index(check.expect.wrt)],
            "backward": {"upstream": enc.value(inputs[up])},
        }

    def judge(self, ctx: Judging, reply, values):
        check, fn = ctx.check, ctx.check.function
        wrt, up = check.expect.wrt, check.expect.upstream
        changed = upstream_changed(ctx, reply)
        if changed:
            return changed
        want = ctx.remember(
            "want", lambda: refs.expected(check.expect, ctx.exercise.references, ctx.inputs)
        )
        grads = values.get("grads")
        got = grads[0] if isinstance(grads, (tuple, list)) and len(grads) == 1 else grads
        where = f"{wrt}.grad"
        found = compare(got, want, values=False, where=where)
        if found:
            return Verdict("failed", _framed(fn, up, explained(found, fn)))
        if "smooth_from" in check.options:
            verdict = self._kinks(ctx, got, want)
            if isinstance(verdict, Verdict):
                return verdict
            got = verdict
        found = compare(got, want, tolerances=ctx.tolerances, where=where)
        return Verdict("failed", _framed(fn, up, explained(found, fn))) if found else None

    def _kinks(self, ctx: Judging, got: TensorFacts, want: torch.Tensor):
        """A verdict for a bad gradient at a kink, else got with the kink rows set to torch's
        (so that the comparison that follows judges only the smooth rows)."""
        check, fn = ctx.check, ctx.check.function
        out = _reference_out(ctx)
        if tuple(out.shape) != tuple(want.shape[:-1]):
            raise refs.SpecBug(
                f"smooth_from needs a reduction over the last dimension; the "
                f"reference {check.expect.of} gives shape {list(out.shape)}"
            )
        kink = out.abs() < float(check.options["smooth_from"])
        if not bool(kink.any()):
            return got
        upstream = ctx.inputs[check.expect.upstream]
        bound = check.options.get("lipschitz")
        g = got.data
        for idx in kink.nonzero().tolist():
            row = g[tuple(idx)]
            size = float(out[tuple(idx)])
            if not bool(torch.isfinite(row).all()):
                return Verdict(
                    "failed",
                    both(
                        "Gradien melalui {fn} di baris {i} tidak hingga: {g}. Di baris itu "
                        "nilai referensi (torch) {n:.3g} (titik tak mulus, misalnya vektor "
                        "nol). Di sana gradien hingga apa pun{b} sudah benar, misalnya 0.",
                        "The gradient through {fn} at row {i} is not finite: {g}. There the "
                        "reference's (torch's) value is {n:.3g} (a kink, such as the zero "
                        "vector). There any finite gradient{b_en} is right, 0 for instance.",
                        fn=fn,
                        i=idx,
                        g=_row_text(row),
                        n=size,
                        b=f" yang panjangnya paling besar {bound:g} × |upstream|" if bound else "",
                        b_en=f" no longer than {bound:g} × |upstream|" if bound else "",
                    ),
                    # which operation makes the NaN is for the student to find (anomaly
                    # detection); the hint, kept back by the feedback level, says it
                    hint=both(
                        "Backward mengalikan turunan lokal tiap operasi; turunan yang tak hingga "
                        "di titik itu (sqrt di 0 punya turunan inf) dikali 0 menjadi NaN "
                        "(inf · 0 = NaN), juga di cabang yang tidak dipilih.",
                        "Backward multiplies each operation's local derivative; one that is "
                        "infinite there (sqrt has an infinite derivative at 0) times 0 is NaN "
                        "(inf · 0 = NaN), in a branch that is not chosen too.",
                    ),
                )
            if bound is not None:
                limit = float(bound) * abs(float(upstream[tuple(idx)]))
                length = float(torch.linalg.vector_norm(row.double()))
                if length > limit * (1 + 1e-6) + 1e-12:
                    return Verdict(
                        "failed",
                        both(
                            "Gradien melalui {fn} di baris {i} (nilai referensi {n:.3g}, titik tak mulus) "
                            "panjangnya {l:.6g}, lebih dari {b} × |upstream| = {m:.6g}: itu bukan "
                            "subgradien.",
                            "The gradient through {fn} at row {i} (the reference's value {n:.3g}, a kink) has "
                            "length {l:.6g}, more than {b} × |upstream| = {m:.6g}: not a "
                            "subgradient.",
                            fn=fn,
                            i=idx,
                            n=size,
                            l=length,
                            b=f"{bound:g}",
                            m=limit,
                        ),
                        hint=both(
                            "Di vektor nol, gradien 0 selalu benar.",
                            "At the zero vector a zero gradient is always right.",
                        ),
                    )
        patched = g.clone()
        patched[kink] = want[kink].to(g.dtype)
        return TensorFacts(data=patched, type_name=got.type_name, exact_type=got.exact_type)


# A relative error this small, where the formula is otherwise right, has a named cause.
SMALL = 1e-5


def explained(found, fn, got=None, want=None) -> Text:
    """The mismatch's text; for a small value error, the cause that the values match (an
    epsilon, an underflow; float32 in the shared text), or else only that it must be equal."""
    return named(found, fn, got, want)[0]


def named(found, fn, got=None, want=None) -> tuple[Text, Mistake | None]:
    """explained()'s text, and the mistake it names (diagnose.small_error_named), if any."""
    if (
        found.kind == "nonfinite"
        and isinstance(got, TensorFacts)
        and isinstance(want, torch.Tensor)
    ):
        zero = diagnose.log_of_zero_named(got.data, want)  # an underflow all the way to 0
        if zero is not None:
            return both("{m} {c}", "{m} {c}", m=mismatch(found, fn), c=zero[1]), zero[0]
    if found.kind != "value" or found.rel_err is None or not 0 < found.rel_err <= SMALL:
        return mismatch(found, fn), None
    cause = None
    if (
        isinstance(got, TensorFacts)
        and isinstance(want, torch.Tensor)
        and not found.float32_values
    ):
        cause = diagnose.small_error_named(got.data, want)
    if cause is None:
        return both(
            "{m} Rumusmu hampir benar, tetapi hasilnya harus sama dengan torch (dalam "
            "toleransi), bukan hanya hingga.",
            "{m} Your formula is nearly right, but the result must equal torch's "
            "(within the tolerance), not merely be finite.",
            m=mismatch(found, fn),
        ), None
    return both("{m} {c}", "{m} {c}", m=mismatch(found, fn), c=cause[1]), cause[0]


def _row_text(row: torch.Tensor) -> str:
    values = row.reshape(-1).tolist()
    shown = ", ".join(f"{v:.6g}" for v in values[:8])
    return f"[{shown}{', ...' if len(values) > 8 else ''}]"


def _framed(fn, up, message):
    return both(
        "Gradien melalui {fn} (backward dengan upstream {u}): {m}",
        "The gradient through {fn} (backward with upstream {u}): {m}",
        fn=fn,
        u=up,
        m=message,
    )


KINDS = [RowwiseValue(), RowwiseVjp()]

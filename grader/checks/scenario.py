"""The scenario kind: the student's function and the spec's reference, run the same way, observed
the same way.

A scenario check draws its args like any check; an optional trusted `setup` turns them into the
objects of the scenario (leaf tensors with preset .grad, a small model, a graph); the function is
called on the objects named in `call`; optionally `backward` runs from the result; then the
`observe`d facets of the result and of the setup's objects are compared with the same run of the
`reference` function (spec source, run in the grader's process, never the student's file):

    kind: scenario
    function: sgd_step
    args: {w: {shape: [N]}, g: {like: w}, lr: {float: [0.01, 1]}}
    setup: |
      def setup(w, g, lr):
          p = w.clone().requires_grad_(True); p.grad = g.clone()
          return {"params": [p], "lr": lr}
    call: [params, lr]
    reference: |
      def sgd_step(params, lr):
          opt = torch.optim.SGD(params, lr=lr); opt.step(); opt.zero_grad()
    observe: {params: [value, grad, requires_grad, is_leaf]}
"""

from __future__ import annotations

import re
import textwrap

import torch

from grader.checks import effects
from grader.checks.base import Judging, Kind, Verdict
from grader.checks.compare import compare
from grader.checks.messages import both, exact, items, mismatch, shown
from grader.checks.named import counted, diagnose
from grader.common import wire
from grader.common.wire import Opaque, TensorFacts
from grader.sandbox.probes import StudentError, describe
from grader.sandbox.probes import scenario as probe
from grader.specs.model import TensorArg, Text
from grader.specs.refs import SpecBug

FLAGS = ("requires_grad", "is_leaf", "grad_fn", "node_returns")
IMPORTS = {
    "math": "import math",
    "nn": "from torch import nn",
    "F": "import torch.nn.functional as F",
}
"""What a setup may use beside torch (probe.NAMESPACE), imported where a shown setup uses it."""


class Scenario(Kind):
    name = "scenario"
    OPTIONS = {
        "reference": str,
        "setup": str,
        "call": list,
        "observe": dict,
        "backward": bool,
        "upstream": str,
        "grad_none_is_zero": bool,
        "rtol": float,
        "atol": float,
    }

    def validate(self, check):
        super().validate(check)
        opts = check.options
        if "reference" not in opts and not check.recorded:
            raise check.node.error(
                "kind",
                f"scenario checks need `reference:` (Python source defining {check.function})",
            )
        if "observe" not in opts or not opts["observe"]:
            raise check.node.error("kind", "scenario checks need `observe:` (name: [facets])")
        names = [a.name for a in check.args]
        for key, source, fn in (
            ("reference", opts.get("reference"), check.function.split(".")[-1]),
            ("setup", opts.get("setup"), "setup"),
        ):
            if source is None:
                continue
            try:
                probe.define(source, fn, f"{check.node.file}:{check.node.where(key)}")
            except SyntaxError as exc:
                raise check.node.error(
                    key, f"not valid Python: {exc.msg} (line {exc.lineno})"
                ) from None
            except Exception as exc:  # the teacher's code failed while being defined
                raise check.node.error(key, f"{type(exc).__name__}: {exc}") from None
        for name, facets in opts["observe"].items():
            if name == "exception":
                continue
            if not isinstance(facets, list) or not facets:
                raise check.node.error(
                    "observe", f"{name}: expected a list of facets such as [value, grad]"
                )
            bad = [f for f in facets if f not in probe.FACETS]
            if bad:
                raise check.node.error(
                    "observe",
                    f"{name}: unknown facet(s) {', '.join(bad)}; known: {', '.join(probe.FACETS)}",
                )
        if "setup" not in opts:
            known = set(names) | {"result", "exception"}
            for name in list(opts["observe"]) + list(opts.get("call", [])):
                if name not in known:
                    raise check.node.error(
                        "observe",
                        f"{name!r} is neither an arg nor result (add a `setup:` that makes it)",
                    )
        up = opts.get("upstream")
        if up is not None and "setup" not in opts and up not in names:
            raise check.node.error("upstream", f"{up!r} is not one of this check's args")

    def request(self, check, inputs, enc):
        opts = check.options
        return {
            "op": "scenario",
            "scenario": {
                "names": [a.name for a in check.args],
                "grad_args": [
                    a.name for a in check.args if isinstance(a, TensorArg) and a.requires_grad
                ],
                "setup": opts.get("setup"),
                "call": list(opts.get("call", [])),
                "observe": {
                    k: list(v) if isinstance(v, list) else [] for k, v in opts["observe"].items()
                },
                "backward": bool(opts.get("backward")),
                "upstream": opts.get("upstream"),
            },
        }

    def prepare(self, ctx):
        ctx.remember("scenario", lambda: expected(ctx.check, ctx.inputs))

    def counterexample(self, check, inputs):
        drawn = super().counterexample(check, inputs)
        if drawn is None or not check.options.get("setup"):
            return drawn
        return drawn + "\n" + rebuilt(check)

    def candidates(self, ctx, reply, values):
        """The old gradient not reset (diagnose.kept_grads): named once the failing examples
        confirm it (grader.grading.confirm), where the feedback level names mistakes."""
        got = values.get("data")
        if not isinstance(got, dict):
            return None
        want = ctx.remember("scenario", lambda: expected(ctx.check, ctx.inputs))
        kept = diagnose.kept_grads(ctx, got, want, lambda: before_call(ctx.check, ctx.inputs))
        return set() if kept is None else {diagnose.GRAD_NOT_RESET.id}

    def judge(self, ctx: Judging, reply, values):
        want = ctx.remember("scenario", lambda: expected(ctx.check, ctx.inputs))
        got = values["data"]
        fn = ctx.check.function
        if not isinstance(got, dict):
            raise ValueError("scenario data is not a mapping")
        if "exception" in want:
            if got.get("exception") != want["exception"]:
                return Verdict(
                    "failed",
                    _with_setup(
                        _exception_text(fn, got.get("exception"), want["exception"]), ctx.check
                    ),
                )
        for name in want:
            if name in ("exception", probe.EFFECTS, probe.COUNTS):
                continue
            found = _diff(got.get(name), want[name], name, ctx)
            if found is not None:
                kept = None
                if ctx.confirmed and diagnose.GRAD_NOT_RESET.id in ctx.confirmed:
                    kept = diagnose.kept_grads(
                        ctx, got, want, lambda: before_call(ctx.check, ctx.inputs)
                    )
                if kept is None:
                    return Verdict("failed", _with_setup(found, ctx.check))
                found = both("{f} {k}", "{f} {k}", f=found, k=kept)
                return Verdict(
                    "failed", _with_setup(found, ctx.check), mistake=diagnose.GRAD_NOT_RESET
                )
        method = counted.judge(fn, got.get(probe.COUNTS), want.get(probe.COUNTS))
        if method is not None:  # the values agree; how they were computed does not
            method.message = _with_setup(method.message, ctx.check)
            return method
        changed = effects.scenario_changes(ctx, got.get(probe.EFFECTS), want.get(probe.EFFECTS))
        if changed is not None:
            changed.message = _with_setup(changed.message, ctx.check)
        return changed


def rebuilt(check) -> str:
    """Python that builds a failing case again from its drawn inputs (shown above it): the
    check's setup as the spec writes it (released to students as written), then the call."""
    opts = check.options
    lines = [
        f"{a.name}.requires_grad_(True)"
        for a in check.args
        if isinstance(a, TensorArg) and a.requires_grad
    ]
    source = textwrap.dedent(opts["setup"]).strip("\n")
    lines += [line for name, line in IMPORTS.items() if re.search(rf"\b{name}\.", source)]
    lines += source.splitlines()
    made = f"setup({', '.join(a.name for a in check.args)})"
    call = [str(n) for n in opts.get("call", [])]
    up = opts.get("upstream") if opts.get("backward") else None
    if len(call) == 1 and call[0].isidentifier() and not up:
        lines.append(f"{call[0]} = {made}[{call[0]!r}]")
        args = call[0]
    else:
        lines.append(f"made = {made}")
        args = ", ".join(f"made[{n!r}]" for n in call) if call else "*made.values()"
    if opts.get("backward"):
        lines.append(f"result = {check.function}({args})")
        grad = (
            f"made[{up!r}].reshape(result.shape).to(result.dtype)"
            if up
            else "torch.ones_like(result)"
        )
        lines.append(f"result.backward({grad})")
    else:
        lines.append(f"{check.function}({args})")
    return "\n".join(lines)


def built(check) -> Text | None:
    """What a message of a check with a setup says of the objects the function ran on."""
    if not check.options.get("setup"):
        return None
    call = ", ".join(str(n) for n in check.options.get("call", []))
    return both(
        "({fn} dipanggil pada {c}, yang dibangun setup pemeriksaan ini dari input yang gagal: "
        "kode setup dan pemanggilannya ada di bawah input itu.)",
        "({fn} ran on {c}, which this check's setup built from the failing input: the setup's "
        "code and the call are shown below that input.)",
        fn=check.function,
        c=call or Text(id="objek", en="the objects"),
    )


def expected(check, inputs: dict) -> dict:
    """The reference's observations on copies of these inputs, decoded as the worker's are."""
    where = f"{check.node.file}:{check.node.where('reference')}"
    ref = probe.define(check.options["reference"], check.function.split(".")[-1], where)
    return _observed(check, inputs, ref, KINDS[0].request(check, inputs, None)["scenario"])


def before_call(check, inputs: dict) -> dict:
    """The objects as the setup leaves them, observed as the check observes them after its call:
    what each .grad held before the student's function ran (no answer is computed: a students'
    release, which holds no reference, can tell it too)."""
    plan = dict(KINDS[0].request(check, inputs, None)["scenario"], backward=False)
    return _observed(check, inputs, lambda *args: None, plan)


def _observed(check, inputs: dict, fn, plan: dict) -> dict:
    opts = check.options
    where = f"{check.node.file}:{check.node.where('reference')}"
    setup = probe.define(opts["setup"], "setup", where) if opts.get("setup") else None
    drawn = {
        k: v.detach().clone() if isinstance(v, torch.Tensor) else v for k, v in inputs.items()
    }
    for a in check.args:
        if isinstance(a, TensorArg) and a.requires_grad:
            drawn[a.name].requires_grad_(True)
    try:
        with torch.enable_grad():
            observed = probe.run(fn, setup, drawn, plan, probe.local_guard)
    except StudentError as err:
        raise SpecBug(
            f"the reference of {check.id} raised {type(err.exc).__name__}: {err.exc}"
        ) from None
    enc = wire.Encoder()
    tree = describe(enc, observed)
    return wire.Decoder({"tensors": enc.tensors}, b"".join(enc.blobs)).value(tree)


def _with_setup(text: Text, check) -> Text:
    said = built(check)
    if said is None:
        return text
    return Text(id=f"{text.id} {said.id}", en=f"{text.en} {said.en}")


def _exception_text(fn, got, want) -> Text:
    if want is None:
        return both(
            "{fn} melempar {g}, padahal seharusnya berjalan tanpa error.",
            "{fn} raised {g}, while it should run without an error.",
            fn=fn,
            g=got,
        )
    if got is None:
        return both(
            "{fn} seharusnya melempar {w}, tetapi berjalan tanpa error.",
            "{fn} should raise {w}, but it ran without an error.",
            fn=fn,
            w=want,
        )
    return both(
        "{fn} melempar {g}, seharusnya {w}.",
        "{fn} raised {g}; expected {w}.",
        fn=fn,
        g=got,
        w=want,
    )


def _show(v) -> str:
    return shown(_values(v))


def _label(fn: str, where: str) -> Text:
    """How a message names an observation: the result, or an object after the call."""
    if where == "result" or where.startswith(("result[", "result.")):
        return Text(id=f"{fn}: {where}", en=f"{fn}: {where}")
    return both("{fn}: setelah pemanggilan, {w}", "{fn}: after the call, {w}", fn=fn, w=where)


def _values(v):
    """An observation as the values it holds: each object observed only by its value stands
    for that value (lists, tuples and dicts of them kept), so a message can quote it."""
    if isinstance(v, dict):
        if _is_facets(v):
            return _values(v["value"]) if set(v) == {"value"} else v
        return {k: _values(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_values(x) for x in v)
    return v


def _quotable(v) -> bool:
    """Values only (no tensor, no object observed by more than its value)."""
    if isinstance(v, dict):
        return not _is_facets(v) and all(_quotable(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return all(_quotable(x) for x in v)
    return not isinstance(v, (TensorFacts, Opaque))


def _diff(got, want, where: str, ctx: Judging) -> Text | None:
    """The first difference between the student's and the reference's observation."""
    fn = ctx.check.function
    if isinstance(want, dict) and _is_facets(want):
        if not isinstance(got, dict):
            return _differs(fn, where, got, want)
        for facet, w in want.items():
            g = got.get(facet)
            if facet == "node_returns":
                if g != w:
                    return _returns_text(fn, where, g, w)
                continue
            if facet == "grad" and ctx.check.options.get("grad_none_is_zero"):
                g, w = _zero_if_none(g, got, want), _zero_if_none(w, want, want)
            text = _diff_leaf(g, w, f"{where}.{facet}", ctx)
            if text is not None:
                return text
        return None
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            return items(_label(fn, where), _values(got), _values(want))
        for key, w in want.items():
            text = _diff(got[key], w, f"{where}.{key}", ctx)
            if text is not None:
                return _item_text(fn, where, got, want, key, text)
        return None
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return items(_label(fn, where), _values(got), _values(want))
        for i, (g, w) in enumerate(zip(got, want)):
            text = _diff(g, w, f"{where}[{i}]", ctx)
            if text is not None:
                return _item_text(fn, where, got, want, i, text)
        return None
    return _diff_leaf(got, want, where, ctx)


def _item_text(fn: str, where: str, got, want, key, text: Text) -> Text:
    """An item of a list or dict differs: a structure of values is quoted whole (or, when
    long, where it parts), a float with the item's own message (its tolerance); a structure
    of tensors says the item's message alone."""
    gv, wv = _values(got), _values(want)
    if not (_quotable(gv) and _quotable(wv)):
        return text
    item = wv[key]
    detail = text if not exact(item) else None
    return items(_label(fn, where), gv, wv, first=key, detail=detail)


def _is_facets(d: dict) -> bool:
    return bool(d) and set(d) <= set(probe.FACETS)


def _zero_if_none(grad, owner: dict, want: dict):
    value = (
        owner.get("value") if isinstance(owner.get("value"), TensorFacts) else want.get("value")
    )
    if grad is None and isinstance(value, TensorFacts):
        return TensorFacts(data=torch.zeros_like(value.data))
    return grad


def _diff_leaf(got, want, where: str, ctx: Judging) -> Text | None:
    fn = ctx.check.function
    if isinstance(want, TensorFacts):
        if not isinstance(got, TensorFacts):
            return _differs(fn, where, got, "tensor")
        found = compare(got, want.data, tolerances=ctx.tolerances, where=where)
        return None if found is None else mismatch(found, fn)
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        found = compare(
            TensorFacts(data=torch.tensor(float(got), dtype=torch.float64)),
            torch.tensor(want, dtype=torch.float64),
            tolerances=ctx.tolerances,
            where=where,
        )
        return None if found is None else mismatch(found, fn)
    if isinstance(want, (list, tuple)) or isinstance(want, dict):
        return _diff(got, want, where, ctx)
    if type(got) is not type(want) or got != want:
        return _differs(fn, where, got, want)
    return None


def _returns_text(fn, where, got, want) -> Text:
    """A custom Function's backward gave gradients where None was expected, or the reverse."""

    def show(flags):
        if not isinstance(flags, list):
            return both("(bukan autograd.Function)", "(not an autograd.Function)")
        items = ", ".join("None" if none else "tensor" for none in flags)
        return Text(id=f"({items})", en=f"({items})")

    return both(
        "{fn}: backward dari grad_fn {w} mengembalikan {g}, seharusnya {x}: kembalikan "
        "None untuk input yang tidak butuh gradien (ctx.needs_input_grad) dan untuk "
        "input yang bukan tensor.",
        "{fn}: the backward of {w}'s grad_fn returned {g}; expected {x}: return None "
        "for inputs that need no gradient (ctx.needs_input_grad) and for inputs that "
        "are not tensors.",
        fn=fn,
        w=where,
        g=show(got),
        x=show(want),
    )


def _differs(fn, where, got, want) -> Text:
    return both(
        "{fn}: setelah pemanggilan, {w} = {g}, seharusnya {x}.",
        "{fn}: after the call, {w} = {g}; expected {x}.",
        fn=fn,
        w=where,
        g=_show(got),
        x=_show(want),
    )


KINDS = [Scenario()]

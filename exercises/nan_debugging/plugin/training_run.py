"""The training_run kind: the grader's fixed training loop (the plugin's training.py), run with the
student's functions, keeps its loss, gradients and parameters finite and follows torch's run.

The worker runs the loop with the student's functions; the grader runs the same loop with the
spec's reference functions and compares the two traces step by step.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from . import training
from grader.specs import refs
from grader.checks.messages import both
from grader.specs.refs import SpecBug
from grader.checks.base import Judging, Kind, Verdict

SLOTS = ("log_softmax", "norm")


class TrainingRun(Kind):
    """Options: functions {slot: entry point}, references {slot: spec reference of one
    argument}, for the slots log_softmax and norm; setup (the plugin's training.py.Setup fields); rtol,
    the loss tolerance against the reference run."""

    name = "training_run"
    OPTIONS = {"functions": dict, "references": dict, "setup": dict, "rtol": float}

    def validate(self, check):
        super().validate(check)
        for key in ("functions", "references"):
            value = check.options.get(key)
            if not isinstance(value, dict) or set(value) != set(SLOTS) or not all(
                    isinstance(v, str) for v in value.values()):
                raise check.node.error(key, f"expected a mapping of {' and '.join(SLOTS)} to "
                                            "names, e.g. {log_softmax: log_softmax, norm: ...}")
        try:
            training.Setup.from_options(dict(check.options.get("setup") or {}))
        except ValueError as exc:
            raise check.node.error("setup", str(exc)) from None
        if check.args:
            raise check.node.error("args", "training_run draws no inputs; remove `args`")

    def setup(self, check) -> training.Setup:
        return training.Setup.from_options(dict(check.options.get("setup") or {}))

    def strategy(self, exercise, check):
        # The run is fixed by its setup; one example is all there is to see.
        return st.just({})

    def request(self, check, inputs, enc):
        return {"op": "train", "setup": self.setup(check).as_dict(),
                "functions": dict(check.options["functions"])}

    def prepare(self, ctx):
        self.reference(ctx)

    def reference(self, ctx: Judging) -> training.Trace:
        return ctx.remember("trace", lambda: self._run_reference(ctx))

    def _run_reference(self, ctx: Judging) -> training.Trace:
        by_slot = {}
        for slot, name in ctx.check.options["references"].items():
            ref = ctx.exercise.references.get(name)
            if ref is None or len(ref.args) != 1:
                raise SpecBug(f"training_run needs a reference {name!r} of one argument")
            by_slot[slot] = (lambda r: lambda t: refs.evaluate(r, {r.args[0]: t}))(ref)
        trace = training.run(self.setup(ctx.check), by_slot["log_softmax"], by_slot["norm"])
        if not all(math.isfinite(v) for v in trace.losses) or not all(
                all(row) for row in trace.grads_finite):
            raise SpecBug("the reference training run itself is not finite")
        return trace

    def judge(self, ctx: Judging, reply, values):
        data = values.get("data")
        want = self.reference(ctx)
        try:
            losses = data["losses"].data.tolist()
            grads_ok = data["grads_finite"].data.tolist()
            params_ok = data["params_finite"].data.tolist()
        except (TypeError, KeyError, AttributeError):
            return Verdict("error", both("Proses pekerja tidak mengirim jejak training.",
                                         "The worker sent no training trace."))
        setup = self.setup(ctx.check)
        fns = ctx.check.options["functions"]
        zero = training.zero_rows(setup)
        rtol = float(ctx.check.options.get("rtol", 1e-3))
        for step, loss in enumerate(losses[:setup.steps]):
            ref_loss = want.losses[step]
            if not math.isfinite(loss):
                # where to look in the message; why and what helps in the hint (held back)
                return Verdict("failed", both(
                    "Loss menjadi {l} pada langkah {k} (torch: {r:.6g}), saat logit mencapai "
                    "±{m:.0f}. Periksa {f} pada logit sebesar itu.",
                    "The loss became {l} at step {k} (torch: {r:.6g}), as the logits reach "
                    "±{m:.0f}. Check {f} on logits that large.",
                    l=loss, k=step, r=ref_loss, m=want.max_logit[step], f=fns["log_softmax"]),
                    hint=both(
                    "exp dari logit sebesar ±{m:.0f} overflow. Kurangi maksimum per baris "
                    "sebelum exp, atau pakai logsumexp.",
                    "exp of logits as large as ±{m:.0f} overflows. Subtract each row's maximum "
                    "before exp, or use logsumexp.", m=want.max_logit[step]))
            bad = [p for p, ok in zip(training.PARAMS, grads_ok[step]) if not ok]
            if bad:
                return Verdict("failed", both(
                    "Gradien {p} menjadi NaN/inf pada langkah {k}, padahal loss masih hingga "
                    "({l:.6g}): NaN lahir di backward. Data punya {z} baris fitur nol, jadi h = "
                    "X W1ᵀ punya baris nol; periksa gradien {f} di vektor nol.",
                    "The gradient of {p} became NaN/inf at step {k} while the loss was still "
                    "finite ({l:.6g}): the NaN is born in backward. The data has {z} all-zero "
                    "feature rows, so h = X W1ᵀ has zero rows; check the gradient of {f} at the "
                    "zero vector.", p=", ".join(bad), k=step, l=loss, z=zero, f=fns["norm"]),
                    hint=both(
                    "find_nan_source menunjuk node backward yang pertama menghasilkan NaN di "
                    "{f}. Di vektor nol, turunan sqrt tak hingga; cabang torch.where yang tidak "
                    "dipilih tetap ikut backward, jadi jauhkan juga input sqrt dari 0.",
                    "find_nan_source names the backward node of {f} that first produces the "
                    "NaN. At the zero vector sqrt's derivative is infinite; a torch.where branch "
                    "that is not chosen still takes part in backward, so keep sqrt's input away "
                    "from 0 there too.", f=fns["norm"]))
            if not all(params_ok[step]):
                return Verdict("failed", both(
                    "Parameter menjadi tidak hingga setelah langkah {k}.",
                    "A parameter became non-finite after step {k}.", k=step))
            if not math.isclose(loss, ref_loss, rel_tol=rtol, abs_tol=rtol):
                return Verdict("failed", both(
                    "Loss pada langkah {k} adalah {l:.6g}, sedangkan dengan fungsi torch "
                    "{r:.6g} (toleransi relatif {t:g}). Training tetap hingga, tetapi {a} "
                    "atau {b} tidak menghitung nilai atau gradien yang sama dengan torch.",
                    "The loss at step {k} is {l:.6g}, while with torch's functions it is "
                    "{r:.6g} (relative tolerance {t:g}). Training stays finite, but {a} or {b} "
                    "does not compute the same values or gradients as torch.",
                    k=step, l=loss, r=ref_loss, t=rtol, a=fns["log_softmax"], b=fns["norm"]))
        if len(losses) != setup.steps:
            return Verdict("error", both("Jejak training tidak lengkap.",
                                         "The training trace is incomplete."))
        return None


KINDS = [TrainingRun()]

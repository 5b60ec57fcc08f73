"""gradcheck and gradgradcheck, with the verdict computed by the grader.

The worker (probe `jacobian`) evaluates the student's function at points the grader chose and
returns the analytic Jacobian rows its backward gives; the grader builds the numerical Jacobian
by central differences and compares, with torch.autograd.gradcheck's tolerances. Like gradcheck,
this compares the student's backward with the student's own forward: value checks compare the
forward with torch.
"""

from __future__ import annotations

import math

import torch

from grader.checks.base import Judging, Kind, Verdict
from grader.checks.messages import both
from grader.common.wire import TensorFacts
from grader.specs.model import TensorArg, Text
from grader.specs.refs import SpecBug

# torch.autograd.gradcheck's defaults.
EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3
MAX_NUMEL = 16
"""Elements of all variables together: two evaluations each, one backward per output element."""


class GradCheck(Kind):
    """d outputs / d inputs from the student's backward equals central differences of its forward."""

    name = "gradcheck"
    OPTIONS = {"eps": float, "atol": float, "rtol": float}
    order = 1
    # A backward consistent with its own forward: zeros, identities and constants are.
    constraint = True

    def validate(self, check):
        super().validate(check)
        if any(d != "float64" for d in check.dtypes):
            raise check.node.error(
                "dtypes",
                f"checks of kind {self.name} run in float64 only "
                "(finite differences need the precision)",
            )
        if not self._wrt(check):
            raise check.node.error(
                "args",
                f"checks of kind {self.name} need at least one "
                "tensor argument with `requires_grad: true`",
            )
        for arg in self._variables(check):
            if arg.dtype not in (None, "float64"):
                raise check.node.error("args", f"{arg.name}: {self.name} runs in float64 only")
            if arg.shape == "any" and arg.like is None:
                raise check.node.error(
                    "args",
                    f"{arg.name}: {self.name} needs a fixed, small "
                    "shape such as [G] with `dims: {G: [1, 8]}`",
                )

    def _wrt(self, check) -> list[int]:
        fn_args = self._fn_args(check)
        return [i for i, a in enumerate(fn_args) if isinstance(a, TensorArg) and a.requires_grad]

    def _fn_args(self, check):
        return list(check.args)

    def _variables(self, check) -> list[TensorArg]:
        fn_args = self._fn_args(check)
        return [fn_args[i] for i in self._wrt(check)]

    def _upstream(self, check) -> list[TensorArg]:
        return []

    def request(self, check, inputs, enc):
        fn_args = self._fn_args(check)
        variables = [inputs[a.name] for a in self._variables(check)]
        variables += [inputs[a.name] for a in self._upstream(check)]
        total = sum(v.numel() for v in variables)
        if total > MAX_NUMEL:
            raise SpecBug(
                f"check {check.id}: {total} elements to perturb; "
                f"{self.name} allows at most {MAX_NUMEL}"
            )
        eps = float(check.options.get("eps", EPS))
        return {
            "op": "jacobian",
            "args": [enc.value(inputs[a.name]) for a in fn_args],
            "wrt": self._wrt(check),
            "order": self.order,
            "upstream": [enc.value(inputs[a.name]) for a in self._upstream(check)],
            "points": [[enc.value(t) for t in p] for p in perturbed(variables, eps)],
        }

    def judge(self, ctx: Judging, reply, values):
        check = ctx.check
        names = [a.name for a in self._variables(check)] + [a.name for a in self._upstream(check)]
        variables = [ctx.inputs[n] for n in names]
        data = values.get("data") if isinstance(values.get("data"), dict) else {}
        base = data.get("base")
        if (
            not isinstance(base, list)
            or not base
            or not all(isinstance(o, TensorFacts) for o in base)
        ):
            return Verdict(
                "failed",
                both(
                    "{fn}: tidak ada tensor hasil yang bisa diperiksa gradcheck.",
                    "{fn}: there is no tensor output for gradcheck to check.",
                    fn=self._out_label(check, 0),
                ),
            )
        for k, out in enumerate(base):
            if out.data.dtype != torch.float64:
                return Verdict(
                    "failed",
                    both(
                        "{o} ber-dtype {d} untuk input float64; gradcheck butuh float64 (jangan "
                        "menghitung dalam float32).",
                        "{o} has dtype {d} for float64 inputs; gradcheck needs float64 (do not "
                        "compute in float32).",
                        o=self._out_label(check, k),
                        d=out.data.dtype,
                    ),
                )
        try:
            numeric = numerical(
                variables, base, data.get("points"), float(check.options.get("eps", EPS))
            )
            analytic = analytical(variables, base, data.get("rows"))
        except BadData as exc:
            return Verdict("failed", both("{k}: {m}", "{k}: {m}", k=self.name, m=exc.text))
        atol = float(check.options.get("atol", ATOL))
        rtol = float(check.options.get("rtol", RTOL))
        worst = _worst(analytic, numeric, atol, rtol)
        if worst is None:
            return None
        i, j = worst
        flags = data.get("differentiable") if isinstance(data.get("differentiable"), list) else []
        k = _owner([o.data.numel() for o in base], j)
        where = {
            "inp": _label(names, variables, i),
            "out": self._out_label(check, k)
            + _index(base[k].data, j - sum(o.data.numel() for o in base[:k])),
        }
        if k < len(flags) and flags[k] is False:
            return Verdict("failed", self._not_differentiable(check, where))
        return Verdict(
            "failed",
            self._mismatch(check, where, analytic[i, j].item(), numeric[i, j].item(), atol, rtol),
        )

    def _out_label(self, check, k: int) -> str:
        return f"{check.function}(...)" + (f"[{k}]" if k else "")

    def _not_differentiable(self, check, where):
        return both(
            "gradcheck: {o} tidak punya grad_fn, jadi autograd tidak pernah memanggil backward-"
            "mu. Kembalikan hasil dari .apply(...) milik autograd.Function-mu.",
            "gradcheck: {o} has no grad_fn, so autograd never calls your backward. Return the "
            "result of your autograd.Function's .apply(...).",
            o=where["out"],
        )

    def _mismatch(self, check, where, a, n, atol, rtol):
        return both(
            "gradcheck (float64) gagal: Jacobian dari backward-mu tidak cocok dengan Jacobian "
            "numerik dari forward-mu (beda hingga). Elemen terburuk ∂{o}/∂{i}: backward-mu "
            "{a}, numerik {n} (toleransi atol={atol:g}, rtol={rtol:g}). backward harus "
            "menghitung turunan dari forward yang sama.",
            "gradcheck (float64) failed: the Jacobian from your backward does not match the "
            "numerical Jacobian of your forward (finite differences). Worst element "
            "∂{o}/∂{i}: your backward {a}, numerical {n} (tolerance atol={atol:g}, "
            "rtol={rtol:g}). backward must compute the derivative of the same forward.",
            o=where["out"],
            i=where["inp"],
            a=_num(a),
            n=_num(n),
            atol=atol,
            rtol=rtol,
        )


class GradGradCheck(GradCheck):
    """The student's backward is itself differentiable: gradcheck of (x, v) -> vᵀ·J(x).

    `upstream:` names the argument holding v (one tensor output, as torch's gradgradcheck
    draws one grad_output per output)."""

    name = "gradgradcheck"
    OPTIONS = dict(GradCheck.OPTIONS, upstream=str)
    order = 2

    def validate(self, check):
        up = check.options.get("upstream")
        if not isinstance(up, str) or up not in [a.name for a in check.args]:
            raise check.node.error(
                "upstream",
                "name the argument that holds the upstream gradient, e.g. `upstream: g`",
            )
        super().validate(check)

    def _fn_args(self, check):
        return [a for a in check.args if a.name != check.options["upstream"]]

    def _upstream(self, check):
        return [check.arg(check.options["upstream"])]

    def _out_label(self, check, k: int) -> str:
        variables = self._variables(check)
        return f"{variables[k].name}.grad" if k < len(variables) else f"grad[{k}]"

    def _not_differentiable(self, check, where):
        return both(
            "gradgradcheck: {o} dari backward-mu tidak bisa diturunkan lagi (tidak punya grad_fn "
            "saat create_graph=True). Hitung backward dengan operasi torch biasa pada tensor "
            "dari ctx.saved_tensors, tanpa torch.no_grad(), .detach(), .data atau numpy.",
            "gradgradcheck: {o} from your backward cannot be differentiated again (it has no "
            "grad_fn under create_graph=True). Compute backward with ordinary torch operations "
            "on the tensors from ctx.saved_tensors, without torch.no_grad(), .detach(), .data "
            "or numpy.",
            o=where["out"],
        )

    def _mismatch(self, check, where, a, n, atol, rtol):
        return both(
            "gradgradcheck (float64) gagal: turunan dari backward-mu (create_graph=True) tidak "
            "cocok dengan beda hingga dari backward-mu sendiri. Elemen terburuk ∂{o}/∂{i}: "
            "autograd {a}, numerik {n} (toleransi atol={atol:g}, rtol={rtol:g}). Hitung "
            "backward dengan operasi torch yang bisa diturunkan, pada tensor dari "
            "ctx.saved_tensors (setelah backward lulus gradcheck).",
            "gradgradcheck (float64) failed: the derivative of your backward (create_graph=True) "
            "does not match finite differences of your own backward. Worst element ∂{o}/∂{i}: "
            "autograd {a}, numerical {n} (tolerance atol={atol:g}, rtol={rtol:g}). Compute "
            "backward with differentiable torch operations on the tensors from "
            "ctx.saved_tensors (once backward passes gradcheck).",
            o=where["out"],
            i=where["inp"],
            a=_num(a),
            n=_num(n),
            atol=atol,
            rtol=rtol,
        )


class BadData(Exception):
    """The worker's data does not fit the request (a changing shape, a missing row)."""

    def __init__(self, text: Text):
        super().__init__(text.en)
        self.text = text


def perturbed(variables: list[torch.Tensor], eps: float) -> list[list[torch.Tensor]]:
    """For each element of each variable: the base point moved by +eps, then by -eps."""
    points = []
    for k, v in enumerate(variables):
        for i in range(v.numel()):
            for step in (eps, -eps):
                moved = [t.detach().clone().contiguous() for t in variables]
                moved[k].view(-1)[i] += step
                points.append(moved)
    return points


def numerical(variables, base, points, eps: float) -> torch.Tensor:
    """(inputs × outputs) central differences from the outputs at the perturbed points."""
    n_in = sum(v.numel() for v in variables)
    shapes = [tuple(o.data.shape) for o in base]
    if not isinstance(points, list) or len(points) != 2 * n_in:
        raise BadData(
            both(
                "{n} evaluasi diharapkan, {g} diterima.",
                "expected {n} evaluations, got {g}.",
                n=2 * n_in,
                g=len(points) if isinstance(points, list) else 0,
            )
        )
    flat = []
    for p in points:
        if not (
            isinstance(p, list)
            and len(p) == len(shapes)
            and all(
                isinstance(o, TensorFacts) and tuple(o.data.shape) == s for o, s in zip(p, shapes)
            )
        ):
            raise BadData(
                both(
                    "struktur atau shape hasil berubah saat input digeser eps.",
                    "the output's structure or shape changes when the input moves by eps.",
                )
            )
        flat.append(torch.cat([o.data.double().reshape(-1) for o in p]))
    stacked = torch.stack(flat) if flat else torch.zeros(0, sum(map(math.prod, shapes)))
    return (stacked[0::2] - stacked[1::2]) / (2 * eps)


def analytical(variables, base, rows) -> torch.Tensor:
    """(inputs × outputs) from the backward rows; a missing gradient counts as zero."""
    n_out = sum(o.data.numel() for o in base)
    if not isinstance(rows, list) or len(rows) != n_out:
        raise BadData(
            both(
                "{n} baris backward diharapkan, {g} diterima.",
                "expected {n} backward rows, got {g}.",
                n=n_out,
                g=len(rows) if isinstance(rows, list) else 0,
            )
        )
    cols = []
    for row in rows:
        parts = []
        for k, v in enumerate(variables):
            g = row[k] if isinstance(row, (list, tuple)) and k < len(row) else None
            if isinstance(g, TensorFacts):
                if g.data.numel() != v.numel():
                    raise BadData(
                        both(
                            "gradien ber-shape {g} untuk input ber-shape {v}.",
                            "a gradient of shape {g} for an input of shape {v}.",
                            g=list(g.data.shape),
                            v=list(v.shape),
                        )
                    )
                parts.append(g.data.double().reshape(-1))
            else:
                parts.append(torch.zeros(v.numel(), dtype=torch.float64))
        cols.append(torch.cat(parts) if parts else torch.zeros(0, dtype=torch.float64))
    n_in = sum(v.numel() for v in variables)
    return torch.stack(cols, dim=1) if cols else torch.zeros(n_in, 0, dtype=torch.float64)


def _worst(analytic, numeric, atol, rtol):
    """(input, output) index of the worst disagreement, or None when all are close."""
    if analytic.numel() == 0:
        return None
    excess = (analytic - numeric).abs() - (atol + rtol * numeric.abs())
    excess = torch.where(
        torch.isfinite(analytic) & torch.isfinite(numeric),
        excess,
        torch.full_like(excess, math.inf),
    )
    if bool((excess <= 0).all()):
        return None
    flat = int(excess.reshape(-1).argmax())
    return divmod(flat, analytic.shape[1])


def _owner(sizes: list[int], j: int) -> int:
    for k, n in enumerate(sizes):
        if j < n:
            return k
        j -= n
    return len(sizes) - 1


def _index(t: torch.Tensor, flat: int) -> str:
    if t.dim() == 0:
        return ""
    idx = torch.unravel_index(torch.tensor(flat), t.shape)
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def _label(names, variables, i: int) -> str:
    for name, v in zip(names, variables):
        if i < v.numel():
            return name + _index(v, i)
        i -= v.numel()
    return f"input[{i}]"


def _num(x: float) -> str:
    return f"{x:.10g}"


KINDS = [GradCheck(), GradGradCheck()]

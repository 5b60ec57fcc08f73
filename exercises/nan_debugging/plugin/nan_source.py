"""Kinds for a NaN-hunting tool: does it name the backward node torch's anomaly detection names,
and does it leave the global anomaly-detection setting as it found it?

The test functions are recipes (the plugin's recipes.py): hypothesis draws the op names and the inputs,
the worker builds the function from the same table, and the truth comes from torch's own anomaly
mode run here, in the grader's process.
"""

from __future__ import annotations

from hypothesis import strategies as st

from . import recipes
from grader.specs import strategies
from grader.checks.messages import both
from grader.specs.refs import SpecBug
from grader.specs.model import TensorArg
from grader.common.wire import Opaque, TensorFacts
from grader.checks.base import Judging, Kind, Verdict

FAMILIES = ("poisoned", "clean")
# Elementwise ops that break at 0 or below: a poisoned recipe applies one right after the
# binary op, whose result is forced to such a value at one element.
BREAKERS = ("sqrt", "log", "rsqrt", "reciprocal", "acos", "where_sqrt")
POISONS = (0.0, -1.0, -2.5)
# Reductions to a scalar; sum and mean, which have no kink of their own, come first so that
# shrinking prefers them.
POISON_REDUCE = ("sum", "mean", "logsumexp", "norm")


def _solve(op: str, target: float, y: float) -> float:
    """The x for which op(x, y) == target, up to rounding (pow: x itself, since 0 ** y == 0 and
    a negative base gives NaN unless y is an integer)."""
    return {"mul": target / y, "add": target - y, "sub": target + y, "div": target * y,
            "pow": target}[op]


@st.composite
def recipe_inputs(draw, exercise, check) -> dict:
    """The spec's two tensor args (x, y), plus `recipe`; poisoned recipes force one element of
    the binary op's result to 0 or below, right before an op that breaks there."""
    inputs = draw(strategies.inputs(exercise, check))
    family = str(check.options.get("recipes", "poisoned"))
    if family == "clean":
        ops = ([draw(st.sampled_from(recipes.CLEAN_BINARY))]
               + draw(st.lists(st.sampled_from(recipes.CLEAN_UNARY), min_size=1, max_size=3))
               + [draw(st.sampled_from(("sum", "mean")))])
        return dict(inputs, recipe=ops)
    first = draw(st.sampled_from(tuple(recipes.BINARY)))
    middle = [draw(st.sampled_from(BREAKERS))] + draw(
        st.lists(st.sampled_from(tuple(recipes.UNARY)), max_size=2))
    ops = [first] + middle + [draw(st.sampled_from(POISON_REDUCE))]
    x_name, y_name = (a.name for a in check.args[:2])
    x, y = inputs[x_name].clone(), inputs[y_name]
    if x.numel():
        i = draw(st.integers(0, x.numel() - 1))
        target = draw(st.sampled_from(POISONS))
        x.view(-1)[i] = _solve(first, target, float(y.reshape(-1)[i]))
    return dict(inputs, **{x_name: x}, recipe=ops)


class _RecipeKind(Kind):
    OPTIONS = {"recipes": str}
    initial: tuple = (False,)

    def validate(self, check):
        super().validate(check)
        family = check.options.get("recipes", "poisoned")
        if family not in FAMILIES:
            raise check.node.error("recipes", f"expected one of {', '.join(FAMILIES)}, "
                                              f"got {family!r}")
        tensors = [a for a in check.args if isinstance(a, TensorArg)]
        if len(check.args) != 2 or len(tensors) != 2:
            raise check.node.error("args", f"checks of kind {self.name} take exactly two tensor "
                                           "args, the x and y of fn(x, y)")

    def strategy(self, exercise, check):
        return recipe_inputs(exercise, check)

    def request(self, check, inputs, enc):
        # `args` (x and y, in the spec's order) is already in the request.
        return {"op": "anomaly", "recipe": list(inputs["recipe"]),
                "initial": list(self.initial)}

    @staticmethod
    def runs(values) -> list[dict]:
        data = values.get("data")
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            return []
        return data


def _shown(value) -> str:
    if isinstance(value, (TensorFacts, Opaque)):
        return f"<{value.type_name}>"
    return repr(value)


def _first_nan(ctx: Judging) -> str | None:
    """The backward node torch's anomaly detection names for this example's recipe."""
    def compute():
        from .teacher import first_nan_node

        tensors = [ctx.inputs[a.name] for a in ctx.check.args]
        try:
            return first_nan_node(ctx.inputs["recipe"], tensors)
        except Exception as exc:
            raise SpecBug(f"torch's anomaly detection failed on {ctx.inputs['recipe']}: "
                          f"{exc}") from exc

    return ctx.remember("first_nan", compute)


class NanSource(_RecipeKind):
    """The tool returns the name of the first backward node that returns NaN, or None."""

    name = "nan_source"

    def prepare(self, ctx):
        _first_nan(ctx)

    def judge(self, ctx: Judging, reply, values):
        recipe = ctx.inputs["recipe"]
        want = _first_nan(ctx)
        runs = self.runs(values)
        if len(runs) != len(self.initial):
            return Verdict("error", both(
                "{fn} tidak memberi hasil yang bisa dibaca grader.",
                "{fn} gave no result the grader could read.", fn=ctx.check.function))
        fn, formula = ctx.check.function, recipes.describe(recipe)
        for run in runs:
            got = run.get("result")
            if got == want and type(got) is type(want):
                continue
            return Verdict("failed", _wrong(fn, formula, got, want))
        return None


def _wrong(fn, formula, got, want):
    call = f"{fn}(fn, x, y)"
    if not (got is None or isinstance(got, str)):
        return both(
            "{c} mengembalikan {g}; seharusnya str (nama node, misalnya 'LogBackward0') atau "
            "None. fn(x, y) = {f}.",
            "{c} returned {g}; expected a str (a node name such as 'LogBackward0') or None. "
            "fn(x, y) = {f}.", c=call, g=_shown(got), f=formula)
    if want is None and got == "":
        return both(
            "{c} mengembalikan '' (string kosong) padahal backward tidak menghasilkan NaN; "
            "kembalikan None. fn(x, y) = {f}.",
            "{c} returned '' (an empty string) while backward produces no NaN; return None "
            "instead. fn(x, y) = {f}.", c=call, f=formula)
    if want is None:
        return both(
            "{c} mengembalikan {g}, padahal anomaly detection torch tidak menemukan NaN di "
            "backward fn(x, y) = {f}; jawabannya None. (NaN di forward saja belum tentu "
            "membuat gradien NaN.)",
            "{c} returned {g}, while torch's anomaly detection finds no NaN in the backward of "
            "fn(x, y) = {f}; the answer is None. (A NaN in the forward alone need not make a "
            "gradient NaN.)", c=call, g=_shown(got), f=formula)
    if got is None:
        return both(
            "{c} mengembalikan None, padahal backward fn(x, y) = {f} menghasilkan NaN: anomaly "
            "detection torch menunjuk {w}.",
            "{c} returned None, but the backward of fn(x, y) = {f} produces NaN: torch's "
            "anomaly detection names {w}.", c=call, f=formula, w=repr(want))
    return both(
        "{c} mengembalikan {g}, padahal anomaly detection torch menunjuk {w} sebagai node "
        "backward pertama yang mengembalikan NaN, untuk fn(x, y) = {f}. Backward berjalan dari "
        "output ke input; node yang menerima gradien inf belum tentu yang menghasilkan NaN.",
        "{c} returned {g}, but torch's anomaly detection names {w} as the first backward node "
        "that returns NaN, for fn(x, y) = {f}. Backward runs from the output to the inputs; the "
        "node that receives an inf gradient is not necessarily the one that makes the NaN.",
        c=call, g=_shown(got), w=repr(want), f=formula)


_ID_STATE = {True: "aktif", False: "mati"}
_EN_STATE = {True: "on", False: "off"}


class AnomalyRestored(_RecipeKind):
    """Run with anomaly detection off and then on, the tool leaves the setting as it found it."""

    name = "anomaly_restored"
    initial = (False, True)
    constraint = True

    def judge(self, ctx: Judging, reply, values):
        runs = self.runs(values)
        if len(runs) != len(self.initial):
            return Verdict("error", both(
                "{fn} tidak memberi hasil yang bisa dibaca grader.",
                "{fn} gave no result the grader could read.", fn=ctx.check.function))
        # The settings requested, in order; the worker's own account of them is not needed.
        for initial, run in zip(self.initial, runs):
            after, check_nan = run.get("after") is True, run.get("after_check_nan") is True
            if after is initial and check_nan:
                continue
            return Verdict("failed", both(
                "Sebelum {fn} dipanggil, anomaly detection {b}; sesudahnya {a}{n}. Fungsi "
                "debugging tidak boleh mengubah setelan global.",
                "Before {fn} was called, anomaly detection was {b_en}; afterwards it was "
                "{a_en}{n_en}. A debugging tool must not change the global setting.",
                fn=ctx.check.function, b=_ID_STATE[initial], a=_ID_STATE[after],
                b_en=_EN_STATE[initial], a_en=_EN_STATE[after],
                n="" if check_nan else " tanpa check_nan",
                n_en="" if check_nan else " without check_nan"),
                hint=both(
                "`with torch.autograd.detect_anomaly():` mengembalikan setelan semula saat "
                "blok selesai, juga bila terjadi error.",
                "`with torch.autograd.detect_anomaly():` restores the previous setting when "
                "the block ends, an error or not."))
        return None


KINDS = [NanSource(), AnomalyRestored()]

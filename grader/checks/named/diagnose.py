"""Named mistakes behind a small value error, each named only when the answer matches it; and
a gradient that was not reset, in a scenario's observations.

A small relative error can come from an epsilon (log(p + 1e-8), sqrt(s + 1e-8)), from float32
arithmetic, or from an underflow (the log of a probability that exp rounded into the subnormal
range). Telling a student "an epsilon" when the cause is an underflow sends them the wrong way,
so each candidate is tested on the failing values: an epsilon shifts every element by the same
amount under the inverse of the last function (exp for a log, a square for a sqrt); an underflow
leaves the elements with normal probabilities right and only the subnormal ones wrong.
"""

from __future__ import annotations

import torch

from grader.checks.base import Mistake
from grader.checks.compare import compare
from grader.checks.messages import both
from grader.common.wire import TensorFacts
from grader.sandbox.probes.scenario import EFFECTS, FACETS
from grader.specs.model import Text

EPSILON_IN_LOG = Mistake(
    "epsilon_in_log", both("epsilon di dalam log", "an epsilon inside the log")
)
EPSILON_IN_SQRT = Mistake(
    "epsilon_in_sqrt", both("epsilon di dalam sqrt", "an epsilon inside the sqrt")
)
UNDERFLOW = Mistake(
    "log_of_underflow",
    both(
        "log dari probabilitas yang underflow (subnormal)",
        "the log of a probability that underflows (subnormal)",
    ),
)


def small_error(got: torch.Tensor, want: torch.Tensor) -> Text | None:
    """The named cause of a small value error, or None when no candidate matches."""
    named = small_error_named(got, want)
    return None if named is None else named[1]


def small_error_named(got: torch.Tensor, want: torch.Tensor) -> tuple[Mistake, Text] | None:
    """small_error() with the mistake it names (see checks.base.Mistake)."""
    got, want = got.double(), want.double()
    ok = torch.isfinite(got) & torch.isfinite(want)
    if got.numel() == 0 or not bool(ok.all()):
        return None
    differ = ~torch.isclose(got, want, rtol=1e-12, atol=0)
    if not bool(differ.any()):
        return None
    eps = _constant_shift(torch.exp(got), torch.exp(want))
    if eps is not None:
        return EPSILON_IN_LOG, both(
            "Hasilmu sama dengan log(p + {e:.1g}) untuk setiap elemen: ada epsilon di "
            "dalam log, dan itu mengubah nilainya.",
            "Your result equals log(p + {e:.1g}) at every element: an epsilon inside "
            "the log, which changes the value.",
            e=eps,
        )
    if bool((want >= 0).all()):
        eps = _constant_shift(got * got, want * want)
        if eps is not None:
            return EPSILON_IN_SQRT, both(
                "Hasilmu sama dengan sqrt(s + {e:.1g}) untuk setiap elemen: ada epsilon "
                "di dalam sqrt, dan itu mengubah nilainya.",
                "Your result equals sqrt(s + {e:.1g}) at every element: an epsilon "
                "inside the sqrt, which changes the value.",
                e=eps,
            )
    tiny = torch.finfo(torch.float64).tiny
    subnormal = torch.exp(want) < tiny
    if bool(subnormal[differ].all()) and bool((~subnormal).any() or subnormal.all()):
        return UNDERFLOW, both(
            "Hanya elemen dengan exp(nilai torch) di bawah {t:.3g} yang berbeda: "
            "probabilitasnya underflow (subnormal) sehingga log(exp(x - m) / Σexp) "
            "kehilangan digit.",
            "Only the elements where exp(torch's value) is below {t:.3g} differ: their "
            "probability underflows (subnormal), so log(exp(x - m) / Σexp) loses its "
            "digits.",
            t=tiny,
        )
    return None


def log_of_zero_named(got: torch.Tensor, want: torch.Tensor) -> tuple[Mistake, Text] | None:
    """The underflow when it went all the way to 0: a result that is -inf exactly where
    torch's (finite) log-probability is below log(tiny), i.e. log(0) of a probability that
    exp rounded to zero, and right (or finite) elsewhere. Any other non-finite value: None."""
    got, want = got.double(), want.double()
    if got.shape != want.shape or got.numel() == 0 or not bool(torch.isfinite(want).all()):
        return None
    bad = ~torch.isfinite(got)
    if not bool(bad.any()) or not bool((got[bad] == float("-inf")).all()):
        return None
    tiny = torch.finfo(torch.float64).tiny
    if not bool((torch.exp(want[bad]) < tiny).all()):
        return None
    return UNDERFLOW, both(
        "Hasilmu -inf tepat di elemen dengan exp(nilai torch) di bawah {t:.3g}: "
        "probabilitasnya underflow menjadi 0, dan log(0) = -inf.",
        "Yours is -inf exactly where exp(torch's value) is below {t:.3g}: the probability "
        "underflows to 0, and log(0) = -inf.",
        t=tiny,
    )


def _constant_shift(a: torch.Tensor, b: torch.Tensor) -> float | None:
    """The positive constant c with a = b + c at every element (to 1%), else None."""
    if not bool((torch.isfinite(a) & torch.isfinite(b)).all()):
        return None
    shift = (a - b).reshape(-1)
    c = float(shift.median())
    if not c > 0 or not bool(((shift - c).abs() <= 0.01 * c).all()):
        return None
    return c


GRAD_NOT_RESET = Mistake(
    "grad_not_reset",
    both(
        "gradien lama tidak di-reset (.grad terakumulasi)",
        "the old gradient was not reset (.grad accumulates)",
    ),
)


def _grads(tree, path: str = "") -> dict[str, dict]:
    """Every observed object that has a grad facet, by its path ("model.2.weight")."""
    if isinstance(tree, dict) and tree and set(tree) <= set(FACETS):
        return {path: tree} if "grad" in tree else {}
    found: dict[str, dict] = {}
    if isinstance(tree, dict):
        for key, sub in tree.items():
            found.update(_grads(sub, f"{path}.{key}" if path else str(key)))
    elif isinstance(tree, (list, tuple)):
        for i, sub in enumerate(tree):
            found.update(_grads(sub, f"{path}[{i}]"))
    return found


def _grad_data(facets: dict) -> torch.Tensor | None:
    grad, value = facets.get("grad"), facets.get("value")
    if isinstance(grad, TensorFacts):
        return grad.data
    if grad is None and isinstance(value, TensorFacts):
        return torch.zeros_like(value.data)
    return None


def kept_grads(ctx, got: dict, want: dict, before) -> Text | None:
    """A scenario's (grader.checks.scenario) named mistake: every .grad that differs from the
    reference's equals it plus the gradient the object held before the call (before(): the
    objects as the setup left them), and one of them held one: the old gradient was not reset
    (accumulated into, or left after a step). None where that is not so."""
    wants = {
        k: v
        for name, tree in want.items()
        if name != EFFECTS
        for k, v in _grads(tree, name).items()
    }
    if not wants:
        return None
    gots = {k: v for name, tree in got.items() for k, v in _grads(tree, name).items()}
    try:
        befores = {k: v for name, tree in before().items() for k, v in _grads(tree, name).items()}
    except Exception:  # a setup that cannot run alone: nothing is named
        return None
    kept = []
    for path, w_facets in wants.items():
        g = _grad_data(gots.get(path) or {})
        w, b = _grad_data(w_facets), _grad_data(befores.get(path) or {})
        if g is None or w is None or b is None or g.shape != w.shape or b.shape != w.shape:
            return None
        if compare(TensorFacts(data=g), w, tolerances=ctx.tolerances) is None:
            continue
        if not bool((b != 0).any()):
            return None
        if compare(TensorFacts(data=g), w + b.to(w.dtype), tolerances=ctx.tolerances):
            return None
        kept.append(path)
    if not kept:
        return None
    return both(
        "{p}: .grad sama dengan gradien torch ditambah gradien yang sudah ada sebelum "
        "pemanggilan: gradien lama tidak di-reset.",
        "{p}: .grad equals torch's gradient plus the one it held before the call: the old "
        "gradient was not reset.",
        p=", ".join(kept[:4]) + (", ..." if len(kept) > 4 else ""),
    )


SCALED = Mistake(
    "scaled",
    both(
        "meleset sebesar faktor konstan (cek pembaginya atau pengalinya)",
        "off by a constant factor (check what it divides or multiplies by)",
    ),
)
SIGN_FLIPPED = Mistake("sign_flipped", both("tanda terbalik (× -1)", "the sign flipped (× -1)"))


def factor(got, want) -> float | None:
    """The constant c with got = c·want at every element (where want is 0, got is too), when
    there is one and it is not 1; None otherwise."""
    if not isinstance(got, TensorFacts) or not isinstance(want, torch.Tensor):
        return None
    g, w = got.data, want
    if g.shape != w.shape or g.numel() == 0 or not g.is_floating_point():
        return None
    g, w = g.double(), w.double()
    if not bool((torch.isfinite(g) & torch.isfinite(w)).all()):
        return None
    nonzero = w != 0
    if not bool(nonzero.any()) or bool((g[~nonzero] != 0).any()):
        return None
    ratios = g[nonzero] / w[nonzero]
    c = float(ratios.median())
    if c == 0 or not bool(torch.isclose(ratios, torch.full_like(ratios, c), rtol=1e-6).all()):
        return None
    if abs(c - 1) <= 1e-6:
        return None
    return c


def factor_candidates(got, want) -> set[str]:
    """The named mistakes (Kind.candidates) a constant factor makes: "scaled" (some factor)
    and "scaled:C" (this one). A scalar only keeps "scaled:C": any wrong scalar has some
    factor, so only the same factor on every example names a mistake."""
    c = factor(got, want)
    if c is None:
        return set()
    exact = {f"scaled:{c:g}"}
    return exact if got.data.numel() == 1 else exact | {"scaled"}


def factor_named(got, want, confirmed) -> tuple[Mistake, Text] | None:
    """The constant factor's mistake and its text, where the examples confirmed it; None
    otherwise (and before that is known)."""
    if confirmed is None:
        return None
    c = factor(got, want)
    if c is None or not ({"scaled", f"scaled:{c:g}"} & set(confirmed)):
        return None
    if abs(c + 1) <= 1e-6:
        return SIGN_FLIPPED, both(
            "Tandanya terbalik: hasilmu = hasil torch × -1 di setiap elemen.",
            "The sign is flipped: your result is torch's × -1 at every element.",
        )
    return SCALED, both(
        "Hasilmu = hasil torch × {c:.6g} di setiap elemen: cek pembagi atau pengalinya.",
        "Your result is torch's × {c:.6g} at every element: check what it divides or "
        "multiplies by.",
        c=c,
    )

"""Named mistakes behind a small value error, each named only when the answer matches it.

A small relative error can come from an epsilon (log(p + 1e-8), sqrt(s + 1e-8)), from float32
arithmetic, or from an underflow (the log of a probability that exp rounded into the subnormal
range). Telling a student "an epsilon" when the cause is an underflow sends them the wrong way,
so each candidate is tested on the failing values: an epsilon shifts every element by the same
amount under the inverse of the last function (exp for a log, a square for a sqrt); an underflow
leaves the elements with normal probabilities right and only the subnormal ones wrong.
"""

from __future__ import annotations

import torch

from grader.checks.messages import both
from grader.specs.model import Text


def small_error(got: torch.Tensor, want: torch.Tensor) -> Text | None:
    """The named cause of a small value error, or None when no candidate matches."""
    got, want = got.double(), want.double()
    ok = torch.isfinite(got) & torch.isfinite(want)
    if got.numel() == 0 or not bool(ok.all()):
        return None
    differ = ~torch.isclose(got, want, rtol=1e-12, atol=0)
    if not bool(differ.any()):
        return None
    eps = _constant_shift(torch.exp(got), torch.exp(want))
    if eps is not None:
        return both(
            "Hasilmu sama dengan log(p + {e:.1g}) untuk setiap elemen: ada epsilon di "
            "dalam log. Hapus epsilon itu; hitung x - m - log Σexp(x - m) langsung.",
            "Your result equals log(p + {e:.1g}) at every element: an epsilon inside "
            "the log. Remove it; compute x - m - log Σexp(x - m) directly.",
            e=eps,
        )
    if bool((want >= 0).all()):
        eps = _constant_shift(got * got, want * want)
        if eps is not None:
            return both(
                "Hasilmu sama dengan sqrt(s + {e:.1g}) untuk setiap elemen: ada epsilon "
                "di dalam sqrt, dan itu mengubah nilainya.",
                "Your result equals sqrt(s + {e:.1g}) at every element: an epsilon "
                "inside the sqrt, which changes the value.",
                e=eps,
            )
    tiny = torch.finfo(torch.float64).tiny
    subnormal = torch.exp(want) < tiny
    if bool(subnormal[differ].all()) and bool((~subnormal).any() or subnormal.all()):
        return both(
            "Hanya elemen dengan exp(nilai torch) di bawah {t:.3g} yang berbeda: "
            "probabilitasnya underflow (subnormal) sehingga log(exp(x - m) / Σexp) "
            "kehilangan digit. Hitung x - m - log Σexp(x - m) langsung, tanpa log dari "
            "sebuah rasio.",
            "Only the elements where exp(torch's value) is below {t:.3g} differ: their "
            "probability underflows (subnormal), so log(exp(x - m) / Σexp) loses its "
            "digits. Compute x - m - log Σexp(x - m) directly, not the log of a ratio.",
            t=tiny,
        )
    return None


def _constant_shift(a: torch.Tensor, b: torch.Tensor) -> float | None:
    """The positive constant c with a = b + c at every element (to 1%), else None."""
    if not bool((torch.isfinite(a) & torch.isfinite(b)).all()):
        return None
    shift = (a - b).reshape(-1)
    c = float(shift.median())
    if not c > 0 or not bool(((shift - c).abs() <= 0.01 * c).all()):
        return None
    return c

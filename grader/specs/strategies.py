"""All hypothesis strategies and the one settings profile the grader uses.

Inputs are drawn in the grader's process. Named dimensions get distinct sizes where their ranges
allow, so that a transposed or broadcast result cannot pass by coincidence.
"""

from __future__ import annotations

import functools
import zlib

import numpy as np
import torch
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from grader.common import wire
from grader.specs.model import Check, Exercise, FloatArg, TensorArg

ANY_SHAPE = array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
"""`shape: any`: 0 to 3 dims; no empty tensor unless the arg says `empty: true` (an edge the
instructions must state to be graded)."""
ANY_SHAPE_EMPTY = array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


def pin_constants() -> bool:
    """Draw from the seed, the spec and the versions alone. Hypothesis mixes into its draws the
    literal constants of the "local" modules loaded when it draws (those outside site-packages,
    parsed within a time budget): the grader's own modules when it runs from a checkout, which
    of them a command happened to import, and the machine's load would all change the examples,
    so that the teacher's `check`, a batch worker and a students' release would draw different
    examples from one seed. This keeps that pool empty. False where hypothesis has no such pool
    (an older or newer hypothesis: its draws then depend on nothing of the kind, or on what it
    documents)."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - hypothesis without the module
        return False
    pool = getattr(providers, "_local_constants", None)
    if pool is None or not hasattr(providers, "_get_local_constants"):
        return False
    empty = type(pool)()
    providers._local_constants = empty
    providers._get_local_constants = lambda *args, **kwargs: empty
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None and hasattr(cache, "cache"):
        cache.cache.clear()
    return True


PINNED = pin_constants()


def profile(examples: int) -> settings:
    """Derandomized by an explicit seed, no database, no deadline, one bug, no explain phase."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        verbosity=Verbosity.quiet,
    )


def seed_for(seed: int, exercise: Exercise, check: Check) -> int:
    return zlib.crc32(f"{seed}/{exercise.id}/{check.id}".encode())


@st.composite
def _sizes(draw, dims: dict, names: list[str]) -> dict:
    used, out = set(), {}
    for name in names:
        lo, hi = dims[name]
        choices = [v for v in range(lo, hi + 1) if v not in used] or list(range(lo, hi + 1))
        out[name] = draw(st.sampled_from(choices))
        used.add(out[name])
    return out


def _dim_names(check: Check, dims: dict) -> list[str]:
    names = []
    for arg in check.args:
        if isinstance(arg, TensorArg) and isinstance(arg.shape, tuple):
            names += [d for d in arg.shape if isinstance(d, str) and d not in names]
    return names


@functools.lru_cache(maxsize=4096)
def _array(low: float, high: float, shape: tuple):
    """Strategies are validated on first use: building each one once saves most of the draw."""
    elements = st.floats(low, high, allow_nan=False, allow_infinity=False)
    return arrays(np.float64, shape, elements=elements)


def _tensor(draw, arg: TensorArg, shape, dtype: str) -> torch.Tensor:
    arr = draw(_array(arg.low, arg.high, tuple(shape)))
    t = torch.from_numpy(arr).to(getattr(torch, dtype))
    if not arg.contiguous and t.dim() >= 1 and t.numel() > 1:
        layout = draw(st.sampled_from(LAYOUTS if t.dim() >= 2 else LAYOUTS[::2]))
        t = _laid_out(t, layout)
    return t


LAYOUTS = ("contiguous", "transposed", "strided")
"""How a tensor argument arrives, by default (a spec's `contiguous: true` keeps the first)."""


def _laid_out(t: torch.Tensor, layout: str) -> torch.Tensor:
    """The same values in a contiguous, transposed or strided (every other element) layout."""
    if layout == "transposed":
        strides = t.transpose(-1, -2).contiguous().transpose(-1, -2).stride()
        return wire.laid_out(t, strides)
    if layout == "strided":
        wide = torch.empty((*t.shape[:-1], t.shape[-1] * 2), dtype=t.dtype)
        return wire.laid_out(t, wide[..., ::2].stride())
    return t


@st.composite
def inputs(draw, exercise: Exercise, check: Check) -> dict:
    """A dict of argument name to value (tensors are the grader's own copies)."""
    dtype = draw(st.sampled_from(check.dtypes))
    sizes = draw(_sizes(exercise.dims, _dim_names(check, exercise.dims)))
    out: dict = {}
    ordered = sorted(check.args, key=lambda a: isinstance(a, TensorArg) and a.like is not None)
    for arg in ordered:
        if isinstance(arg, FloatArg):
            out[arg.name] = draw(st.floats(arg.low, arg.high))
            continue
        if arg.like is not None:
            shape = tuple(out[arg.like].shape)
        elif arg.shape == "any":
            shape = draw(ANY_SHAPE_EMPTY if arg.empty else ANY_SHAPE)
        else:
            shape = tuple(sizes[d] if isinstance(d, str) else d for d in arg.shape)
        out[arg.name] = _tensor(draw, arg, shape, arg.dtype or dtype)
    return {a.name: out[a.name] for a in check.args}

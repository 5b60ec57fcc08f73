"""All hypothesis strategies and the one settings profile the grader uses.

Inputs are drawn in the grader's process. Named dimensions get distinct sizes where their ranges
allow, so that a transposed or broadcast result cannot pass by coincidence.
"""

from __future__ import annotations

import copy
import functools
import zlib

import numpy as np
import torch
from hypothesis import HealthCheck, Phase, Verbosity, example, find, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from grader.common import wire
from grader.specs.model import Check, Edge, Exercise, FloatArg, TensorArg

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


# Strategies are validated on first use, and a new object is a new one to validate: each one a
# draw uses is built once (a tenth of drawing went to validating strategies built per example).
# An equal strategy draws the same values, whatever the object: what is drawn is unchanged.


@functools.lru_cache(maxsize=4096)
def sampled(values: tuple):
    return st.sampled_from(values)


@functools.lru_cache(maxsize=4096)
def floats(low: float, high: float, **options):
    return st.floats(low, high, **options)


@st.composite
def _sizes(draw, dims: tuple, names: tuple) -> dict:
    used, out, bounds = set(), {}, dict(dims)
    for name in names:
        lo, hi = bounds[name]
        choices = [v for v in range(lo, hi + 1) if v not in used] or list(range(lo, hi + 1))
        out[name] = draw(sampled(tuple(choices)))
        used.add(out[name])
    return out


@functools.lru_cache(maxsize=4096)
def _sized(dims: tuple, names: tuple):
    """_sizes for (name, (low, high)) pairs and the names to draw, built once."""
    return _sizes(dims, names)


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
        layout = draw(sampled(LAYOUTS if t.dim() >= 2 else LAYOUTS[::2]))
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


STATE = "__state__"
"""The key of an example's starting state: {argument name: its old .grad} for the tensor
arguments the caller holds as leaves that already require grad (the wire carries the state, the
worker builds it: grader.common.wire.Encoder.states)."""
STATES = ("fresh", "tracked")
"""How the caller holds a kind's tensor arguments (Kind.starting_states), drawn per example:
as fresh tensors, or already requiring grad with an old .grad (an argument's `untracked: true`
keeps it fresh: the instructions must say so)."""
OLD_GRAD = 0.5
"""The value of every element of an old .grad (the caller's previous step's)."""


def held(check: Check, args: dict) -> dict:
    """The starting state of every tensor argument that may be held (not `untracked`)."""
    return {
        a.name: torch.full(tuple(args[a.name].shape), OLD_GRAD, dtype=args[a.name].dtype)
        for a in check.args
        if isinstance(a, TensorArg) and not a.untracked and args[a.name].is_floating_point()
    }


_INPUTS: dict[tuple, tuple] = {}


def inputs(exercise: Exercise, check: Check, states: bool = False):
    """The strategy of a dict of argument name to value (tensors are the grader's own copies);
    states: also draw the caller's tensors already requiring grad (STATE). One object per
    (exercise, check, states): a kind's strategy that draws from it per example builds none."""
    key = (id(exercise), id(check), states)
    held = _INPUTS.get(key)
    if held is None or held[0] is not exercise or held[1] is not check:
        if len(_INPUTS) >= 4096:
            _INPUTS.clear()
        held = _INPUTS[key] = (exercise, check, _inputs(exercise, check, states))
    return held[2]


@st.composite
def _inputs(draw, exercise: Exercise, check: Check, states: bool = False) -> dict:
    if _FORCED:  # an edge's arguments (explicit): a kind's own strategy draws only the rest
        return copy.deepcopy(_FORCED[-1])
    dtype = draw(sampled(tuple(check.dtypes)))
    dims = tuple((k, tuple(v)) for k, v in exercise.dims.items())
    sizes = draw(_sized(dims, tuple(_dim_names(check, exercise.dims))))
    out: dict = {}
    ordered = sorted(check.args, key=lambda a: isinstance(a, TensorArg) and a.like is not None)
    for arg in ordered:
        if isinstance(arg, FloatArg):
            out[arg.name] = draw(floats(arg.low, arg.high))
            continue
        if arg.like is not None:
            shape = tuple(out[arg.like].shape)
        elif arg.shape == "any":
            shape = draw(ANY_SHAPE_EMPTY if arg.empty else ANY_SHAPE)
        else:
            shape = tuple(sizes[d] if isinstance(d, str) else d for d in arg.shape)
        out[arg.name] = _tensor(draw, arg, shape, arg.dtype or dtype)
    result = {a.name: out[a.name] for a in check.args}
    if states and draw(sampled(STATES)) == "tracked":
        state = held(check, result)
        if state:
            result[STATE] = state
    return result


# Edges: examples every draw starts with, whatever the seed. A check whose point is an edge (a
# tie, a subnormal, a layout) must give the same verdict under the public seed, which students
# replay, and the grading seed, which the class is graded with: an edge only some seeds draw
# would pass a wrong answer on one side and fail it on the other.

EDGE_LAYOUTS = LAYOUTS[1:]
"""The layouts every draw of a check includes, each as an example of its own, where the check
has an argument drawn in every layout (strategies.LAYOUTS)."""

_FORCED: list[dict] = []
_EXPLICIT: dict[str, list[dict]] = {}


def explicit(exercise: Exercise, check: Check, strategy=None, states: bool = False) -> list[dict]:
    """The check's edges as examples, in the order they run, before anything drawn: the spec's
    `edges:` (each in each of the check's dtypes unless it names one), then one example per
    layout of EDGE_LAYOUTS where an argument is drawn in every layout, then (states: the kind
    hands the function its arguments as the caller holds them) one with every tensor argument in
    its starting state (STATE). Arguments an edge does not
    name are filled in from a generator seeded by the exercise, the check and the edge, never by
    the grading seed, with sides of at least 2 where the dims allow (a transposed [1, 1] is no
    layout). strategy: the kind's (kind.strategy(exercise, check)), which draws what it adds
    around the arguments (a critic, a recipe) as its simplest example; None: the arguments alone.
    The same list, in copies, every time."""
    key = _explicit_key(exercise, check, strategy) + f"/{states}"
    found = _EXPLICIT.get(key)
    if found is None:
        found = [_completed(args, strategy) for args in _edge_args(exercise, check, states)]
        _EXPLICIT[key] = found
    return copy.deepcopy(found)


def with_edges(test, exercise: Exercise, check: Check, strategy=None, states: bool = False):
    """A @given test with the check's edges (explicit) as hypothesis's explicit examples: they
    run first, in order, and a failing one is reported as it is, unshrunk."""
    for args in reversed(explicit(exercise, check, strategy, states)):
        test = example(args)(test)
    return test


def _explicit_key(exercise: Exercise, check: Check, strategy) -> str:
    drawn = (check.kind, check.args, check.dtypes, check.options, check.expect, check.edges)
    return (
        f"{exercise.id}/{exercise.spec_hash}/{exercise.plugin_digest}/{check.id}/"
        f"{drawn!r}/{exercise.dims!r}/{strategy is not None}"
    )


def _edge_args(exercise: Exercise, check: Check, states: bool = False) -> list[dict]:
    out = []
    for i, edge in enumerate(check.edges):
        for dtype in (edge.dtype,) if edge.dtype else check.dtypes:
            out.append(_filled(exercise, check, edge, dtype, "contiguous", f"edge{i}"))
    laid = [a for a in check.args if isinstance(a, TensorArg) and not a.contiguous]
    if laid:
        for layout in EDGE_LAYOUTS:
            args = _filled(exercise, check, Edge({}), check.dtypes[0], layout, layout)
            if any(not args[a.name].is_contiguous() for a in laid):
                out.append(args)
    if states:
        args = _filled(exercise, check, Edge({}), check.dtypes[0], "contiguous", "state")
        state = held(check, args)
        if state:
            out.append(dict(args, **{STATE: state}))
    return out


def _completed(args: dict, strategy) -> dict:
    """The kind's example around these arguments (its simplest draw of the rest)."""
    if strategy is None:
        return args
    _FORCED.append(args)
    try:
        return find(
            strategy,
            lambda _: True,
            settings=settings(
                database=None,
                deadline=None,
                derandomize=True,
                max_examples=1,
                phases=(Phase.generate,),
                suppress_health_check=list(HealthCheck),
            ),
        )
    finally:
        _FORCED.pop()


def _filled(exercise: Exercise, check: Check, edge: Edge, dtype: str, layout: str, name: str):
    """The edge's arguments, those it does not name filled in (uniform in their range)."""
    gen = torch.Generator().manual_seed(zlib.crc32(f"{exercise.id}/{check.id}/{name}".encode()))
    given = {
        k: torch.tensor(v, dtype=torch.float64)
        for k, v in edge.values.items()
        if _is_tensor(check, k)
    }
    sizes = _edge_sizes(exercise.dims, check, given)
    out: dict = {}
    ordered = sorted(check.args, key=lambda a: isinstance(a, TensorArg) and a.like is not None)
    for arg in ordered:
        if isinstance(arg, FloatArg):
            value = edge.values.get(arg.name)
            if value is None:
                u = float(torch.rand((), generator=gen, dtype=torch.float64))
                value = arg.low + (arg.high - arg.low) * u
            out[arg.name] = float(value)
            continue
        if arg.name in given:
            t = given[arg.name]
        else:
            if arg.like is not None:
                shape = tuple(out[arg.like].shape)
            elif arg.shape == "any":
                shape = (2, 3)
            else:
                shape = tuple(sizes[d] if isinstance(d, str) else d for d in arg.shape)
            u = torch.rand(shape, generator=gen, dtype=torch.float64)
            t = arg.low + (arg.high - arg.low) * u
        t = t.to(getattr(torch, arg.dtype or dtype))
        if not arg.contiguous and layout != "contiguous" and _shows(t, layout):
            t = _laid_out(t, layout)
        out[arg.name] = t
    return {a.name: out[a.name] for a in check.args}


def _is_tensor(check: Check, name: str) -> bool:
    return any(a.name == name and isinstance(a, TensorArg) for a in check.args)


def _shows(t: torch.Tensor, layout: str) -> bool:
    """Whether the layout is a layout of its own for t (not the contiguous one again)."""
    if layout == "transposed":
        return t.dim() >= 2 and t.shape[-1] > 1 and t.shape[-2] > 1
    return t.dim() >= 1 and t.shape[-1] > 1


def _edge_sizes(dims: dict, check: Check, given: dict) -> dict:
    """Each named dim's size: the edge's own tensors' where they set it, else the smallest
    unused size of at least 2 that its range allows (distinct, as drawn ones are)."""
    sizes: dict = {}
    for arg in check.args:
        if isinstance(arg, TensorArg) and arg.name in given and isinstance(arg.shape, tuple):
            for d, n in zip(arg.shape, given[arg.name].shape):
                if isinstance(d, str):
                    sizes.setdefault(d, int(n))
    for name in _dim_names(check, dims):
        if name not in sizes:
            lo, hi = dims[name]
            used = set(sizes.values())
            wide = [v for v in range(max(lo, 2), hi + 1) if v not in used]
            free = wide or [v for v in range(lo, hi + 1) if v not in used] or [lo]
            sizes[name] = free[0]
    return sizes

"""A check's `edges:` in exercise.yaml: the examples that are the point of the check (a tie at .5,
a zero row, a subnormal, two equal values), drawn first under every seed (grader.specs.strategies
.explicit), validated here against the check's arguments with errors that name the file and line.

    edges:
      - {x: [[0.5, 1.5, -2.5], [2.5, -0.5, 3.5]]}   # ties: round half to even
      - {x: [1.0e-40, -1.0e-40], dtype: float32}   # subnormals of float32

Each edge names some of the check's arguments: a number (a float argument, a 0-d tensor) or
nested lists of numbers (a tensor, its shape as the argument's `shape:` allows). Arguments it
does not name are filled in the same way every time; `dtype:` (one of the check's dtypes) makes
it one example in that dtype, else it is one example in each of the check's dtypes.
"""

from __future__ import annotations

import math

from grader.common.errors import SpecError
from grader.common.yamlfile import Node, NodeList
from grader.specs.model import Edge, FloatArg, TensorArg

MAX_ELEMENTS = 4096
"""The most numbers one edge's tensor may hold (an edge is an example, not a data set)."""


def load_edges(node: Node, args: tuple, dims: dict, dtypes: tuple) -> tuple[Edge, ...]:
    """The check's `edges:` (node: the check's mapping), each checked against its args."""
    items = node.get_typed("edges", NodeList, None)
    if items is None:
        return ()
    if not args:
        raise node.error("edges", "this check draws no arguments, so it has no edges to name")
    by_name = {a.name: a for a in args}
    if "dtype" in by_name:
        raise node.error("edges", "an argument named `dtype` clashes with an edge's `dtype:` key")
    out = []
    for i, item in enumerate(items):
        where = f"{node.path}.edges[{i}]"
        if not isinstance(item, Node) or not item:
            raise SpecError(
                node.file,
                items.where(i),
                where,
                "expected a mapping of argument names to values, such as {x: [0.5, 2.5]}",
            )
        item.reject_unknown(set(by_name) | {"dtype"})
        dtype = item.get_typed("dtype", str, None)
        if dtype is not None and dtype not in dtypes:
            raise item.error(
                "dtype", f"{dtype!r} is not one of this check's dtypes ({', '.join(dtypes)})"
            )
        values = {k: v for k, v in item.items() if k != "dtype"}
        if not values:
            raise item.error("dtype", "an edge names at least one argument's value")
        sizes: dict = {}
        shapes: dict = {}
        for name, value in values.items():
            arg = by_name[name]
            if isinstance(arg, FloatArg):
                _number(item, name, value, arg)
                values[name] = float(value)
                continue
            shape = _shape(item, name, value)
            _numbers_in_range(item, name, value, arg)
            _fits(item, name, arg, shape, dims, sizes)
            shapes[name] = shape
            values[name] = _plain(value)
        for name in shapes:
            like = by_name[name].like
            if like is not None and like not in shapes:
                raise item.error(
                    name,
                    f"{name} has the shape of {like} (`like: {like}`): give {like}'s value in "
                    "this edge too",
                )
            if like is not None and shapes[like] != shapes[name]:
                raise item.error(
                    name,
                    f"shape {list(shapes[name])} differs from {like}'s {list(shapes[like])} "
                    f"(`like: {like}`)",
                )
        out.append(Edge(values=values, dtype=dtype))
    return tuple(out)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number(item: Node, name: str, value, arg) -> None:
    if not _is_number(value):
        raise item.error(name, f"expected a number, got {value!r}{_yaml_note(value)}")
    if not (math.isfinite(value) and arg.low <= value <= arg.high):
        raise item.error(
            name,
            f"{value!r} is outside the argument's range [{arg.low:g}, {arg.high:g}]: an edge is "
            "an input the instructions cover; widen the range or change the value",
        )


def _yaml_note(value) -> str:
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return ""
        return (
            f" (YAML reads {value} as text: write the number with a dot and a signed "
            "exponent, such as 1.0e-40)"
        )
    return ""


def _shape(item: Node, name: str, value) -> tuple:
    """The shape of nested lists of numbers (rectangular), or a SpecError."""
    if _is_number(value):
        return ()
    if not isinstance(value, list):
        raise item.error(
            name, f"expected a number or nested lists of numbers, got {value!r}{_yaml_note(value)}"
        )
    if not value:
        return (0,)
    inner = [_shape(item, name, v) for v in value]
    if any(s != inner[0] for s in inner):
        raise item.error(name, "the nested lists are not rectangular (rows of different lengths)")
    shape = (len(value), *inner[0])
    if math.prod(shape) > MAX_ELEMENTS:
        raise item.error(name, f"more than {MAX_ELEMENTS} numbers: an edge is one small example")
    return shape


def _numbers_in_range(item: Node, name: str, value, arg: TensorArg) -> None:
    if isinstance(value, list):
        for v in value:
            _numbers_in_range(item, name, v, arg)
    else:
        _number(item, name, value, arg)


def _fits(item: Node, name: str, arg: TensorArg, shape: tuple, dims: dict, sizes: dict) -> None:
    """The value's shape is one the argument's `shape:` draws (a named dim the same size in
    every argument of the edge)."""
    if 0 in shape and not (arg.shape == "any" and arg.empty):
        raise item.error(
            name,
            f"shape {list(shape)} is empty: only a `shape: any` argument with `empty: true` "
            "is drawn empty",
        )
    if arg.shape == "any" or arg.shape is None:  # (None: `like:`, checked by the caller)
        if len(shape) > 3:
            raise item.error(name, f"shape {list(shape)}: `shape: any` draws 0 to 3 dims")
        return
    if len(shape) != len(arg.shape):
        raise item.error(
            name, f"shape {list(shape)} does not match the argument's shape {list(arg.shape)}"
        )
    for d, n in zip(arg.shape, shape):
        if isinstance(d, str):
            lo, hi = dims[d]
            if not lo <= n <= hi:
                raise item.error(name, f"{d} = {n} is outside its range [{lo}, {hi}] in `dims`")
            if sizes.setdefault(d, n) != n:
                raise item.error(
                    name, f"{d} = {n} here but {sizes[d]} in another argument of this edge"
                )
        elif d != n:
            raise item.error(
                name, f"shape {list(shape)} does not match the argument's shape {list(arg.shape)}"
            )


def _plain(value):
    """Nested lists and numbers as plain Python values (no NodeList left in the model)."""
    return [_plain(v) for v in value] if isinstance(value, list) else float(value)

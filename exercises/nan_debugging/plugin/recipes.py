"""Test functions built from recipes: lists of op names from a fixed table, sent as data.

A recipe such as ["mul", "sqrt", "log", "sum"] means fn(x, y) = sum(log(sqrt(x * y))): a binary
op on the two inputs, any number of elementwise ops, then a reduction to a scalar. The worker
builds the function it hands to a student's debugging tool from this table, and the grader
builds the same function to ask torch's anomaly detection which backward node first returns NaN;
no code travels between the two.
"""

from __future__ import annotations

import re

import torch

BINARY = {
    "mul": (torch.mul, "{a} * {b}"),
    "add": (torch.add, "{a} + {b}"),
    "sub": (torch.sub, "{a} - {b}"),
    "div": (torch.div, "{a} / {b}"),
    "pow": (torch.pow, "{a} ** {b}"),
}

UNARY = {
    "sqrt": (torch.sqrt, "sqrt({a})"),
    "log": (torch.log, "log({a})"),
    "exp": (torch.exp, "exp({a})"),
    "sin": (torch.sin, "sin({a})"),
    "tanh": (torch.tanh, "tanh({a})"),
    "sigmoid": (torch.sigmoid, "sigmoid({a})"),
    "relu": (torch.relu, "relu({a})"),
    "abs": (torch.abs, "abs({a})"),
    "square": (lambda t: t ** 2, "{a} ** 2"),
    "reciprocal": (torch.reciprocal, "1 / {a}"),
    "rsqrt": (torch.rsqrt, "rsqrt({a})"),
    "acos": (torch.acos, "acos({a})"),
    "log1p": (torch.log1p, "log1p({a})"),
    # The classic trap: the branch that is not taken still meets backward, with a zero upstream.
    "where_sqrt": (lambda t: torch.where(t > 0, torch.sqrt(t), torch.zeros_like(t)),
                   "where({a} > 0, sqrt({a}), 0)"),
}

REDUCE = {
    "sum": (torch.sum, "sum({a})"),
    "mean": (torch.mean, "mean({a})"),
    "logsumexp": (lambda t: torch.logsumexp(t.reshape(-1), 0), "logsumexp({a})"),
    "norm": (torch.linalg.vector_norm, "norm({a})"),
}

# Elementwise ops that stay finite, with finite gradients, on inputs in [0.5, 2]; clean recipes
# draw from these.
CLEAN_UNARY = ("sin", "tanh", "sigmoid", "relu", "abs", "square", "sqrt", "log", "log1p",
               "reciprocal", "exp")
CLEAN_BINARY = ("mul", "add", "div")



class RecipeError(ValueError):
    """A recipe that is not made of the table's ops in the required order."""


def validate(recipe) -> list[str]:
    if not (isinstance(recipe, list) and len(recipe) >= 2 and all(isinstance(s, str)
                                                                  for s in recipe)):
        raise RecipeError(f"expected a list of op names, got {recipe!r}")
    first, *middle, last = recipe
    if first not in BINARY or last not in REDUCE or any(op not in UNARY for op in middle):
        raise RecipeError(f"not a recipe of this table: {recipe!r}")
    return list(recipe)


def build(recipe):
    """The function fn(x, y) -> scalar that a recipe names."""
    first, *middle, last = validate(recipe)
    binary, unary, reduce = BINARY[first][0], [UNARY[op][0] for op in middle], REDUCE[last][0]

    def fn(x, y):
        t = binary(x, y)
        for op in unary:
            t = op(t)
        return reduce(t)

    return fn


def describe(recipe) -> str:
    """The recipe as a formula, e.g. `sum(log(sqrt(x * y)))`."""
    first, *middle, last = validate(recipe)
    text = BINARY[first][1].format(a="x", b="y")
    for op in middle:
        template = UNARY[op][1]
        # A call such as sqrt(...) brackets its argument; an operator needs brackets around one.
        operator = not re.match(r"\w+\(\{a\}", template)
        call = re.match(r"\w+\(.*\)$", text)
        text = template.format(a=f"({text})" if operator and not call and " " in text else text)
    return REDUCE[last][1].format(a=text)

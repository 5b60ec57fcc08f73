"""A fixed training run that an integration check drives with a student's functions.

The model is a small classifier on sensor-like data: an embedding h = X W1ᵀ, a head
logits = h W2ᵀ + b2, and the loss mean(-log_softmax(logits)[y]) + penalty · mean(norm(h)). The
data, the initial weights and the loop live here, in grader code: a worker runs it with the
student's log_softmax and norm, the grader with the spec's references, and nothing else differs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import torch

PARAMS = ("W1", "W2", "b2")


@dataclass(frozen=True)
class Setup:
    seed: int = 0
    """Seeds the data and the initial weights (a generator of its own, not the global one)."""
    steps: int = 5
    samples: int = 64
    features: int = 8
    hidden: int = 6
    classes: int = 3
    scale: float = 400.0
    """Spread of the class centres: raw sensor readings in the hundreds give logits as large."""
    dead: float = 0.2
    """Fraction of all-zero rows (a dead sensor); at least one is always there."""
    lr: float = 1e-3
    penalty: float = 1e-2
    """Weight of the embedding-length penalty mean(norm(h))."""
    dtype: str = "float32"

    @classmethod
    def from_options(cls, options: dict) -> "Setup":
        known = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ValueError(f"unknown setting(s) {', '.join(unknown)}; known: "
                             f"{', '.join(known)}")
        values = {}
        for key, value in options.items():
            default = getattr(cls, key)
            if isinstance(default, bool) or not isinstance(value, (type(default), int)) or \
                    isinstance(value, bool):
                raise ValueError(f"{key}: expected {type(default).__name__}, got {value!r}")
            values[key] = type(default)(value)
        setup = cls(**values)
        if setup.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype: expected float32 or float64, got {setup.dtype!r}")
        if min(setup.steps, setup.samples, setup.features, setup.hidden, setup.classes) < 1:
            raise ValueError("steps, samples, features, hidden and classes must be at least 1")
        return setup

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def data(setup: Setup) -> tuple[torch.Tensor, torch.Tensor]:
    """Features X (samples x features) with some all-zero rows, and labels y."""
    g = torch.Generator().manual_seed(setup.seed)
    dtype = getattr(torch, setup.dtype)
    centres = torch.randn(setup.classes, setup.features, generator=g, dtype=dtype) * setup.scale
    y = torch.randint(setup.classes, (setup.samples,), generator=g)
    noise = torch.randn(setup.samples, setup.features, generator=g, dtype=dtype)
    X = centres[y] + 0.1 * setup.scale * noise
    dead = torch.rand(setup.samples, generator=g) < setup.dead
    dead[0] = True
    X[dead] = 0
    return X, y


def initial_params(setup: Setup) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(setup.seed + 1)
    dtype = getattr(torch, setup.dtype)
    return {
        "W1": torch.randn(setup.hidden, setup.features, generator=g, dtype=dtype)
        / math.sqrt(setup.features),
        "W2": torch.randn(setup.classes, setup.hidden, generator=g, dtype=dtype)
        / math.sqrt(setup.hidden),
        "b2": torch.zeros(setup.classes, dtype=dtype),
    }


@dataclass
class Trace:
    """What happened at each step: the loss, and which gradients and parameters are finite."""

    losses: list
    grads_finite: list
    """Per step, one bool per name in PARAMS."""
    params_finite: list
    """Per step, after the update, one bool per name in PARAMS."""
    max_logit: list
    """Per step, the largest |logit| (NaN when the logits are not finite)."""


def run(setup: Setup, log_softmax, norm, grad=torch.autograd.grad) -> Trace:
    """Plain gradient descent for setup.steps steps, with the given log_softmax and norm
    (each over the last dimension). Exceptions from them propagate."""
    X, y = data(setup)
    params = {k: v.requires_grad_(True) for k, v in initial_params(setup).items()}
    trace = Trace([], [], [], [])
    with torch.enable_grad():
        for _ in range(setup.steps):
            h = X @ params["W1"].T
            logits = h @ params["W2"].T + params["b2"]
            nll = -log_softmax(logits).gather(1, y[:, None]).mean()
            loss = nll + setup.penalty * norm(h).mean()
            grads = grad(loss, [params[k] for k in PARAMS])
            trace.losses.append(float(loss.detach()))
            trace.max_logit.append(float(logits.detach().abs().max()))
            trace.grads_finite.append([bool(torch.isfinite(gr).all()) for gr in grads])
            params = {k: (params[k] - setup.lr * gr).detach().requires_grad_(True)
                      for k, gr in zip(PARAMS, grads)}
            trace.params_finite.append([bool(torch.isfinite(params[k]).all()) for k in PARAMS])
    return trace


def zero_rows(setup: Setup) -> int:
    X, _ = data(setup)
    return int((X == 0).all(dim=1).sum())

"""Trusted critic recipes: small WGAN critics built from plain data, a recipe and its weights.

Both processes use this module. The grader draws a recipe and weights, builds the critic to
compute the reference penalty, and sends the same recipe (JSON) and weights (tensor bytes) to the
worker, which builds its own copy for the student's function. A critic never travels as a pickled
module, so the student's file cannot choose what it is graded with; and the module is imported by
the template before any student code runs.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import torch
from torch import nn

ACTIVATIONS = {
    "tanh": ("Tanh", nn.Tanh),
    "relu": ("ReLU", nn.ReLU),
    # 0.2: the slope WGAN critics commonly use.
    "leaky_relu": ("LeakyReLU(0.2)", lambda: nn.LeakyReLU(0.2)),
    "softplus": ("Softplus", nn.Softplus),
}
ARCHS = ("mlp", "cnn")
MAX_LAYERS = 4
MAX_WIDTH = 64


@dataclass(frozen=True)
class Recipe:
    """What a critic is made of; its weights come separately, in `parameters()` order."""

    arch: str
    """mlp (inputs N x D) or cnn (inputs N x C x H x W)."""
    act: str
    """A key of ACTIVATIONS, used after every hidden layer."""
    sample_shape: tuple[int, ...]
    """The shape of one sample: (D,) or (C, H, W)."""
    widths: tuple[int, ...]
    """Hidden widths (mlp) or output channels of each convolution (cnn)."""
    kernel: int = 3
    """cnn only: the convolutions' kernel size; padding is kernel // 2."""
    flat_output: bool = False
    """True: the critic returns shape (N,); False: (N, 1)."""

    def __post_init__(self):
        ok = (self.arch in ARCHS and self.act in ACTIVATIONS
              and 1 <= len(self.widths) <= MAX_LAYERS
              and all(type(w) is int and 1 <= w <= MAX_WIDTH for w in self.widths)
              and all(type(s) is int and 1 <= s <= MAX_WIDTH for s in self.sample_shape)
              and len(self.sample_shape) == (1 if self.arch == "mlp" else 3)
              and type(self.kernel) is int and 1 <= self.kernel <= 5)
        if not ok:
            raise ValueError(f"not a valid critic recipe: {self!r}")

    def to_dict(self) -> dict:
        """Plain JSON values, for the wire."""
        return {"arch": self.arch, "act": self.act, "sample_shape": list(self.sample_shape),
                "widths": list(self.widths), "kernel": self.kernel,
                "flat_output": self.flat_output}

    @classmethod
    def from_dict(cls, raw) -> "Recipe":
        if not isinstance(raw, dict):
            raise ValueError("a critic recipe must be a mapping")
        try:
            return cls(arch=raw["arch"], act=raw["act"],
                       sample_shape=tuple(raw["sample_shape"]), widths=tuple(raw["widths"]),
                       kernel=raw.get("kernel", 3), flat_output=bool(raw.get("flat_output")))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a valid critic recipe: {exc}") from None

    def describe(self) -> str:
        """One line a student can read: the layers and the output shape."""
        act = ACTIVATIONS[self.act][0]
        out = "(N,)" if self.flat_output else "(N, 1)"
        if self.arch == "mlp":
            sizes = "→".join(str(s) for s in (self.sample_shape[0], *self.widths, 1))
            return f"MLP {sizes} ({act}), output {out}"
        c = self.sample_shape[0]
        convs = []
        for k in self.widths:
            convs.append(f"Conv2d({c}→{k}, kernel {self.kernel}) → {act}")
            c = k
        return f"CNN {' → '.join(convs)} → Linear({self._flat_size()}→1), output {out}"

    def _flat_size(self) -> int:
        _, h, w = self.sample_shape
        grow = 2 * (self.kernel // 2) - self.kernel + 1
        h, w = h + grow * len(self.widths), w + grow * len(self.widths)
        return self.widths[-1] * h * w


def _layers(recipe: Recipe, dtype) -> list:
    meta = {"device": "meta", "dtype": dtype}  # no init, no RNG: the weights are set after
    act = ACTIVATIONS[recipe.act][1]
    layers: list = []
    if recipe.arch == "mlp":
        prev = recipe.sample_shape[0]
        for width in recipe.widths:
            layers += [nn.Linear(prev, width, **meta), act()]
            prev = width
        layers.append(nn.Linear(prev, 1, **meta))
    else:
        prev = recipe.sample_shape[0]
        for channels in recipe.widths:
            layers += [nn.Conv2d(prev, channels, recipe.kernel, padding=recipe.kernel // 2,
                                 **meta), act()]
            prev = channels
        layers += [nn.Flatten(), nn.Linear(recipe._flat_size(), 1, **meta)]
    if recipe.flat_output:
        layers.append(nn.Flatten(0))
    return layers


def build(recipe: Recipe, weights, dtype=torch.float64) -> nn.Sequential:
    """The critic of this recipe with these weights (a list of tensors in parameters() order)."""
    net = nn.Sequential(*_layers(recipe, dtype))  # on the meta device: shapes only
    named = list(net.named_parameters())
    weights = list(weights)
    if len(weights) != len(named):
        raise ValueError(f"critic needs {len(named)} weight tensors, got {len(weights)}")
    with torch.no_grad():
        for (name, p), w in zip(named, weights):
            if tuple(w.shape) != tuple(p.shape):
                raise ValueError(f"weight of shape {tuple(w.shape)} for a parameter of shape "
                                 f"{tuple(p.shape)}")
            # What to_empty(device="cpu") then copy_ made, without to_empty's trip through
            # torch's meta-tensor machinery (most of a critic's cost per call).
            owner, _, attr = name.rpartition(".")
            data = torch.empty(p.shape, dtype=p.dtype).copy_(w)
            setattr(net.get_submodule(owner), attr, nn.Parameter(data, p.requires_grad))
    return net


def parameter_names(recipe: Recipe) -> list[str]:
    return list(_parameter_names(recipe))


@functools.lru_cache(maxsize=256)
def _parameter_names(recipe: Recipe) -> tuple[str, ...]:
    """(A recipe is frozen: its names never change, and building its layers costs a
    millisecond.)"""
    return tuple(name for name, _ in
                 nn.Sequential(*_layers(recipe, torch.float64)).named_parameters())


def init_weights(recipe: Recipe, seed: int, dtype=torch.float64) -> list[torch.Tensor]:
    """Gaussian weights scaled by 1/sqrt(fan_in), so that input gradients have norms near 1
    (both sides of the penalty's target); biases are drawn too, so no layer passes zero."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for p in nn.Sequential(*_layers(recipe, dtype)).parameters():
        if p.dim() == 1:
            out.append(0.5 * torch.randn(p.shape, generator=gen, dtype=dtype))
        else:
            fan_in = math.prod(p.shape[1:])
            out.append(1.5 * torch.randn(p.shape, generator=gen, dtype=dtype) / math.sqrt(fan_in))
    return out


def kill_sample(recipe: Recipe, weights: list, sample: torch.Tensor, margin: float) -> list:
    """Weights whose first-layer bias makes every first-layer unit negative (at least `margin`
    below zero) for this one sample: with ReLU its input gradient is then exactly zero.

    The bias is a drawn input, committed with the course's examples and compared bit for bit
    (grader.loader.committed), so it must be the same on every machine: each unit's
    pre-activation is summed with math.fsum (correctly rounded) over the elementwise products,
    never with `w @ sample` or conv2d, whose MKL/oneDNN kernels add in an order that depends on
    the CPU (another machine's bias differed in its last bits)."""
    w, b = weights[0], weights[1]
    with torch.no_grad():
        if recipe.arch == "mlp":
            products = (w * sample).tolist()  # (units, D): each product rounded alike anywhere
            peak = [math.fsum(row) for row in products]
        else:
            pad = recipe.kernel // 2
            # im2col only moves numbers: (C·k·k, positions), no arithmetic.
            cols = torch.nn.functional.unfold(sample[None], recipe.kernel, padding=pad)[0]
            products = (w.reshape(w.shape[0], -1, 1) * cols).tolist()  # (out, C·k·k, positions)
            peak = [max(math.fsum(col) for col in zip(*rows)) for rows in products]
        peak = torch.tensor(peak, dtype=torch.float64)
    return [w, (-peak - margin).to(b.dtype)] + list(weights[2:])

"""The gradient penalty as the grader computes it, and the wrong answers students give.

Runs only in the grader's process, on the grader's copies of the inputs and a critic it builds
itself from the recipe and weights it drew (grader.critics):

    x̂ = alpha·real + (1 - alpha)·fake   (alpha per sample)
    penalty = lam · mean_i (‖∂critic(x̂)_i / ∂x̂_i‖₂ - 1)²   (the norm over all non-batch dims)
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import torch

from .. import critics
from ..messages import both


@dataclass
class DrawnCritic:
    """One example's critic, as the grader drew it."""

    recipe: critics.Recipe
    weights: list
    """Tensors in parameters() order."""
    preset_grads: list | None = None
    """The caller's .grad on each parameter before the call (None: no .grad)."""
    dead: int | None = None
    """The sample whose input gradient is exactly zero (every first-layer ReLU is off)."""
    frozen: tuple = ()
    """Indices (parameters() order) of parameters the caller froze (requires_grad False)."""
    training: bool = True
    """The critic's mode as the caller left it (train or eval)."""

    def __repr__(self) -> str:
        extra = []
        if self.frozen:
            names = critics.parameter_names(self.recipe)
            extra.append("frozen: " + ", ".join(names[i] for i in self.frozen))
        if not self.training:
            extra.append("eval mode")
        return self.recipe.describe() + (f" [{'; '.join(extra)}]" if extra else "")


@dataclass
class Reference:
    """What torch autograd gives for one example."""

    value: torch.Tensor
    """The penalty, a scalar."""
    grads: list
    """d value / d parameter, zeros where the penalty does not depend on it."""
    input_grad: torch.Tensor
    """∂critic(x̂)/∂x̂, one row per sample."""


def interpolate(real, fake, alpha):
    a = alpha.reshape((-1,) + (1,) * (real.dim() - 1))
    return a * real + (1 - a) * fake


def norms(g: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(g.reshape(g.shape[0], -1), dim=1)


def input_grad(critic, x: torch.Tensor, create_graph: bool = False) -> torch.Tensor:
    x = x.detach().requires_grad_(True)
    with torch.enable_grad():
        out = critic(x)
        (g,) = torch.autograd.grad(out, x, torch.ones_like(out), create_graph=create_graph)
    return g


@contextmanager
def one_thread():
    """Tiny tensors: a thread pool only adds waiting, and on a loaded machine a float64
    double backward through a convolution takes 50x longer with two threads than with one."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def reference(drawn: DrawnCritic, real, fake, alpha, lam: float) -> Reference:
    critic = critics.build(drawn.recipe, drawn.weights, real.dtype)
    params = list(critic.parameters())
    with torch.enable_grad(), one_thread():
        g = input_grad(critic, interpolate(real, fake, alpha), create_graph=True)
        value = lam * ((norms(g) - 1) ** 2).mean()
        grads = torch.autograd.grad(value, params, allow_unused=True)
    grads = [torch.zeros_like(p) if d is None else d.detach() for p, d in zip(params, grads)]
    return Reference(value.detach(), grads, g.detach())


# Wrong answers students give, recomputed here so that feedback can name the mistake.
def suspects(drawn: DrawnCritic, real, fake, alpha, lam: float, ref: Reference) -> list:
    """(name, value) of each mistake in DIAGNOSES, at these inputs."""
    g = ref.input_grad
    n = norms(g)
    critic = critics.build(drawn.recipe, drawn.weights, g.dtype)
    with one_thread():
        return list(_suspects(critic, real, fake, alpha, lam, g, n))


def _suspects(critic, real, fake, alpha, lam, g, n):
    def at(x):
        return lam * ((norms(input_grad(critic, x)) - 1) ** 2).mean()

    yield "sum", lam * ((n - 1) ** 2).sum()
    yield "no_lam", ((n - 1) ** 2).mean()
    yield "squared", lam * ((n ** 2 - 1) ** 2).mean()
    yield "abs", lam * (n - 1).abs().mean()
    yield "batch", lam * (torch.linalg.vector_norm(g) - 1) ** 2
    if g.dim() > 2:
        yield "dim1", lam * ((torch.linalg.vector_norm(g, dim=1) - 1) ** 2).mean()
    yield "swapped", at(interpolate(fake, real, alpha))
    yield "at_real", at(real)
    yield "at_fake", at(fake)
    if alpha.numel() > 1:
        yield "one_alpha", at(interpolate(real, fake, alpha[:1].expand_as(alpha)))
    if real.dim() == 2:
        # alpha.view(-1, 1, 1, 1), the image recipe, on (N, D) data: x̂ broadcasts to
        # (N, 1, N, D), and each "sample" is a whole copy of the batch.
        try:
            x4 = alpha.view(-1, 1, 1, 1) * real + (1 - alpha.view(-1, 1, 1, 1)) * fake
            yield "alpha_4d", at(x4)
        except RuntimeError:
            pass


DIAGNOSES = {
    "sum": both("Nilaimu sama dengan penalty yang dijumlahkan atas batch; ambil rata-ratanya "
                "(.mean()).", "Your value equals the penalty summed over the batch; take the "
                "mean (.mean())."),
    "no_lam": both("Nilaimu sama dengan penalty tanpa faktor lam; kalikan dengan lam.",
                   "Your value equals the penalty without the factor lam; multiply by lam."),
    "squared": both("Nilaimu sama dengan penalty dengan ‖g‖² (jumlah kuadrat) sebagai ganti "
                    "‖g‖; ambil norm-nya (akar dari jumlah kuadrat).",
                    "Your value equals the penalty with ‖g‖² (the sum of squares) in place of "
                    "‖g‖; take the norm (the square root of the sum of squares)."),
    "abs": both("Nilaimu sama dengan lam·mean(|‖g‖ - 1|); kuadratkan selisihnya: (‖g‖ - 1)².",
                "Your value equals lam·mean(|‖g‖ - 1|); square the difference: (‖g‖ - 1)²."),
    "batch": both("Nilaimu sama dengan penalty dengan satu norm atas seluruh batch; hitung norm "
                  "per sampel, atas semua dimensi kecuali batch, misalnya "
                  "g.flatten(1).norm(2, dim=1).",
                  "Your value equals the penalty with one norm over the whole batch; take one "
                  "norm per sample, over every dimension except the batch, e.g. "
                  "g.flatten(1).norm(2, dim=1)."),
    "dim1": both("Nilaimu sama dengan penalty dengan norm atas dim 1 saja; untuk gambar "
                 "(N, C, H, W) norm mencakup C, H dan W: ratakan dulu, "
                 "g.flatten(1).norm(2, dim=1).",
                 "Your value equals the penalty with the norm over dim 1 only; for images "
                 "(N, C, H, W) the norm covers C, H and W: flatten first, "
                 "g.flatten(1).norm(2, dim=1)."),
    "swapped": both("Nilaimu sama dengan penalty di x̂ = alpha·fake + (1 - alpha)·real: "
                    "interpolasinya terbalik. Gunakan x̂ = alpha·real + (1 - alpha)·fake.",
                    "Your value equals the penalty at x̂ = alpha·fake + (1 - alpha)·real: the "
                    "interpolation is the wrong way round. Use "
                    "x̂ = alpha·real + (1 - alpha)·fake."),
    "at_real": both("Nilaimu sama dengan penalty dengan gradien di real, bukan di x̂; hitung "
                    "critic(x̂) dan gradiennya terhadap x̂.",
                    "Your value equals the penalty with the gradient taken at real, not at x̂; "
                    "compute critic(x̂) and its gradient with respect to x̂."),
    "one_alpha": both("Nilaimu sama dengan penalty dengan satu alpha (alpha[0]) untuk seluruh "
                      "batch; alpha punya satu nilai per sampel: bentuk ulang menjadi (N, 1, ...) "
                      "dan pakai semuanya.",
                      "Your value equals the penalty with one alpha (alpha[0]) for the whole "
                      "batch; alpha holds one value per sample: reshape it to (N, 1, ...) and use "
                      "all of them."),
    "alpha_4d": both("Nilaimu sama dengan penalty dengan alpha ber-shape (N, 1, 1, 1) pada data "
                     "(N, D): x̂ ter-broadcast menjadi (N, 1, N, D). Bentuk alpha mengikuti "
                     "real: alpha.view(-1, *[1] * (real.dim() - 1)).",
                     "Your value equals the penalty with alpha shaped (N, 1, 1, 1) on (N, D) "
                     "data: x̂ broadcasts to (N, 1, N, D). Shape alpha after real: "
                     "alpha.view(-1, *[1] * (real.dim() - 1))."),
    "at_fake": both("Nilaimu sama dengan penalty dengan gradien di fake, bukan di x̂; hitung "
                    "critic(x̂) dan gradiennya terhadap x̂.",
                    "Your value equals the penalty with the gradient taken at fake, not at x̂; "
                    "compute critic(x̂) and its gradient with respect to x̂."),
}


def dead_samples(ref: Reference) -> list[int]:
    """The samples whose input gradient is exactly zero (a ReLU critic with every unit off)."""
    return [int(i) for i in (norms(ref.input_grad) == 0).nonzero().reshape(-1)]

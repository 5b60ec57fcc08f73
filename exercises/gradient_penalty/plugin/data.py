"""The gradient penalty's data: one example's critic as drawn, what the reference observed on
it, and the texts that name the mistakes students make.

Data only: the reference and the mistakes are computed by the plugin's teacher.py, which stays
with the teacher (a students' release judges from recorded References).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from . import critics
from grader.checks.messages import both


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


TITLES = {
    "sum": both("penalty dijumlahkan atas batch, bukan dirata-rata",
                "the penalty summed over the batch, not averaged"),
    "no_lam": both("tanpa faktor lam", "without the factor lam"),
    "squared": both("‖g‖² sebagai ganti ‖g‖", "‖g‖² in place of ‖g‖"),
    "abs": both("|‖g‖ - 1| sebagai ganti (‖g‖ - 1)²", "|‖g‖ - 1| in place of (‖g‖ - 1)²"),
    "batch": both("satu norm atas seluruh batch", "one norm over the whole batch"),
    "dim1": both("norm atas dim 1 saja", "the norm over dim 1 only"),
    "swapped": both("interpolasi terbalik", "the interpolation the wrong way round"),
    "at_real": both("gradien di real, bukan di x̂", "the gradient at real, not at x̂"),
    "one_alpha": both("satu alpha untuk seluruh batch", "one alpha for the whole batch"),
    "alpha_4d": both("alpha ber-shape (N, 1, 1, 1) pada data (N, D)",
                     "alpha shaped (N, 1, 1, 1) on (N, D) data"),
    "at_fake": both("gradien di fake, bukan di x̂", "the gradient at fake, not at x̂"),
}
"""Each mistake of DIAGNOSES in a few words, as a class report lists it (checks.base.Mistake)."""


def dead_samples(ref: Reference) -> list[int]:
    """The samples whose input gradient is exactly zero (a ReLU critic with every unit off)."""
    g = ref.input_grad
    zero = (g.reshape(g.shape[0], -1) == 0).all(dim=1)
    return [int(i) for i in zero.nonzero().reshape(-1)]

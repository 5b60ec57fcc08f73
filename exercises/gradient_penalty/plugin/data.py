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
    # What the value shows, in the message; how to fix it is in FIXES, the hint the feedback
    # level keeps back until the student asks (grader.outcomes.levels).
    "sum": both("Nilaimu sama dengan penalty yang dijumlahkan atas batch, bukan dirata-rata.",
                "Your value equals the penalty summed over the batch, not averaged."),
    "no_lam": both("Nilaimu sama dengan penalty tanpa faktor lam.",
                   "Your value equals the penalty without the factor lam."),
    "squared": both("Nilaimu sama dengan penalty dengan ‖g‖² (jumlah kuadrat) sebagai ganti "
                    "‖g‖.",
                    "Your value equals the penalty with ‖g‖² (the sum of squares) in place of "
                    "‖g‖."),
    "abs": both("Nilaimu sama dengan penalty dengan |‖g‖ - 1| sebagai ganti kuadrat "
                "selisihnya.",
                "Your value equals the penalty with |‖g‖ - 1| in place of the squared "
                "difference."),
    "batch": both("Nilaimu sama dengan penalty dengan satu norm atas seluruh batch, bukan satu "
                  "norm per sampel.",
                  "Your value equals the penalty with one norm over the whole batch, not one "
                  "norm per sample."),
    "dim1": both("Nilaimu sama dengan penalty dengan norm atas dim 1 saja; untuk gambar "
                 "(N, C, H, W) norm mencakup C, H dan W.",
                 "Your value equals the penalty with the norm over dim 1 only; for images "
                 "(N, C, H, W) the norm covers C, H and W."),
    "swapped": both("Nilaimu sama dengan penalty di x̂ = alpha·fake + (1 - alpha)·real: "
                    "interpolasinya terbalik.",
                    "Your value equals the penalty at x̂ = alpha·fake + (1 - alpha)·real: the "
                    "interpolation is the wrong way round."),
    "at_real": both("Nilaimu sama dengan penalty dengan gradien di real, bukan di x̂.",
                    "Your value equals the penalty with the gradient taken at real, not at x̂."),
    "one_alpha": both("Nilaimu sama dengan penalty dengan satu alpha (alpha[0]) untuk seluruh "
                      "batch, padahal alpha punya satu nilai per sampel.",
                      "Your value equals the penalty with one alpha (alpha[0]) for the whole "
                      "batch, while alpha holds one value per sample."),
    "alpha_4d": both("Nilaimu sama dengan penalty dengan alpha ber-shape (N, 1, 1, 1) pada data "
                     "(N, D): x̂ ter-broadcast menjadi (N, 1, N, D).",
                     "Your value equals the penalty with alpha shaped (N, 1, 1, 1) on (N, D) "
                     "data: x̂ broadcasts to (N, 1, N, D)."),
    "at_fake": both("Nilaimu sama dengan penalty dengan gradien di fake, bukan di x̂.",
                    "Your value equals the penalty with the gradient taken at fake, not at x̂."),
}


FIXES = {
    "sum": both("Ambil rata-ratanya atas batch (.mean()).", "Take the mean over the batch "
                "(.mean())."),
    "no_lam": both("Kalikan dengan lam.", "Multiply by lam."),
    "squared": both("Ambil norm-nya: akar dari jumlah kuadrat.",
                    "Take the norm: the square root of the sum of squares."),
    "abs": both("Kuadratkan selisihnya: (‖g‖ - 1)².", "Square the difference: (‖g‖ - 1)²."),
    "batch": both("Hitung norm per sampel, atas semua dimensi kecuali batch, misalnya "
                  "g.flatten(1).norm(2, dim=1).",
                  "Take one norm per sample, over every dimension except the batch, e.g. "
                  "g.flatten(1).norm(2, dim=1)."),
    "dim1": both("Ratakan dulu: g.flatten(1).norm(2, dim=1).",
                 "Flatten first: g.flatten(1).norm(2, dim=1)."),
    "swapped": both("Gunakan x̂ = alpha·real + (1 - alpha)·fake.",
                    "Use x̂ = alpha·real + (1 - alpha)·fake."),
    "at_real": both("Hitung critic(x̂) dan gradiennya terhadap x̂.",
                    "Compute critic(x̂) and its gradient with respect to x̂."),
    "one_alpha": both("Bentuk ulang alpha menjadi (N, 1, ...) dan pakai semuanya.",
                      "Reshape alpha to (N, 1, ...) and use all of it."),
    "alpha_4d": both("Bentuk alpha mengikuti real: alpha.view(-1, *[1] * (real.dim() - 1)).",
                     "Shape alpha after real: alpha.view(-1, *[1] * (real.dim() - 1))."),
    "at_fake": both("Hitung critic(x̂) dan gradiennya terhadap x̂.",
                    "Compute critic(x̂) and its gradient with respect to x̂."),
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

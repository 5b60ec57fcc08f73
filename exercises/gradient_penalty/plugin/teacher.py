"""The gradient penalty as the teacher's grader computes it, and the wrong answers students give.

Runs only in the grader's process, on the grader's copies of the inputs and a critic it builds
itself from the recipe and weights it drew (the plugin's critics.py):

    x̂ = alpha·real + (1 - alpha)·fake   (alpha per sample)
    penalty = lam · mean_i (‖∂critic(x̂)_i / ∂x̂_i‖₂ - 1)²   (the norm over all non-batch dims)
"""

from __future__ import annotations

from contextlib import contextmanager

import torch

from . import critics
from .data import DrawnCritic, Reference


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

"""Mutant: safe_norm asks whether the row v is zero (v != 0) instead of whether s = Σv² is: a
row of subnormal values is not zero, yet its squares underflow to s = 0, and sqrt's derivative
there is infinite (a NaN or inf gradient). Only such a row shows it: safe_norm's checks name it
as an edge, drawn under every seed.

Breaks the rule norm_finite_at_zero.
"""

import math
import re

import torch


def log_softmax(logits):
    # The row maximum only shifts the row: its gradient cancels, so detach it.
    m = logits.max(dim=-1, keepdim=True).values.detach()
    shifted = logits - m
    return shifted - torch.log(torch.exp(shifted).sum(dim=-1, keepdim=True))


def safe_norm(v):
    s = (v * v).sum(dim=-1)
    nonzero = (v != 0).any(dim=-1)
    safe = torch.where(nonzero, s, torch.ones_like(s))
    return torch.where(nonzero, torch.sqrt(safe), torch.zeros_like(s))


def find_nan_source(fn, *inputs):
    leaves = [x.detach().clone().requires_grad_(True) for x in inputs]
    # detect_anomaly restores the previous setting when the block ends, error or not.
    with torch.autograd.detect_anomaly():
        out = fn(*leaves)
        try:
            out.backward()
        except RuntimeError as exc:
            found = re.search(r"Function '(\w+)' returned nan values", str(exc))
            if found is None:
                raise
            return found.group(1)
    return None


# --- Data, model dan training loop / data, model and training loop ------------------------

PARAMS = ("W1", "W2", "b2")


def sensor_data(seed=0, samples=64, features=8, classes=3, scale=400.0, dead=0.2):
    """Bacaan sensor X (samples x features, sebagian baris nol) dan label y."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, features, generator=g) * scale
    y = torch.randint(classes, (samples,), generator=g)
    X = centres[y] + 0.1 * scale * torch.randn(samples, features, generator=g)
    is_dead = torch.rand(samples, generator=g) < dead
    is_dead[0] = True
    X[is_dead] = 0  # sensor mati / a dead sensor
    return X, y


def initial_params(seed=0, features=8, hidden=6, classes=3):
    g = torch.Generator().manual_seed(seed + 1)
    return {
        "W1": torch.randn(hidden, features, generator=g) / math.sqrt(features),
        "W2": torch.randn(classes, hidden, generator=g) / math.sqrt(hidden),
        "b2": torch.zeros(classes),
    }


def train(steps=5, lr=1e-3, penalty=1e-2, seed=0):
    X, y = sensor_data(seed)
    params = {k: p.requires_grad_(True) for k, p in initial_params(seed).items()}
    for step in range(steps):
        h = X @ params["W1"].T
        logits = h @ params["W2"].T + params["b2"]
        loss = -log_softmax(logits).gather(1, y[:, None]).mean() + penalty * safe_norm(h).mean()
        grads = torch.autograd.grad(loss, [params[k] for k in PARAMS])
        finite = {k: bool(torch.isfinite(g).all()) for k, g in zip(PARAMS, grads)}
        print(f"langkah/step {step}: loss = {loss.item():.4f}, |logit| maks = "
              f"{logits.abs().max().item():.0f}, gradien hingga / finite grads: {finite}")
        params = {k: (params[k] - lr * g).detach().requires_grad_(True)
                  for k, g in zip(PARAMS, grads)}
    return params


if __name__ == "__main__":
    train()

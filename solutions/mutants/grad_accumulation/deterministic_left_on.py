"""Mutant: turns on torch.use_deterministic_algorithms(True) "for reproducible sums" and never
turns it off again; the gradients stay right.

Breaks the rule global_modes.
"""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    torch.use_deterministic_algorithms(True)
    model.zero_grad()
    n = x.shape[0]
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        loss = F.mse_loss(model(xb), tb) * xb.shape[0] / n
        loss.backward()

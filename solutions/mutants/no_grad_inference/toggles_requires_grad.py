"""Mutant: turns every parameter's requires_grad off for inference and back on, unfreezing frozen ones.

Breaks the rule keeps_requires_grad.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    for p in model.parameters():
        p.requires_grad_(False)
    out = model(x)
    for p in model.parameters():
        p.requires_grad_(True)
    return out


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

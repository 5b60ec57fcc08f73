"""Mutant: switches the parameters' requires_grad off instead of using no_grad.

Breaks the rule keeps_requires_grad.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    for p in model.parameters():
        p.requires_grad_(False)
    return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

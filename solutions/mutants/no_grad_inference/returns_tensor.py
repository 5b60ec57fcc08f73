"""Mutant: returns the loss tensor, not a float.

Breaks the rule returns_float.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    with torch.no_grad():
        return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss

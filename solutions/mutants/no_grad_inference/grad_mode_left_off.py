"""Mutant: predict switches grad mode off for the whole program (torch.set_grad_enabled(False))
and never restores it.

Breaks the rule global_modes.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    torch.set_grad_enabled(False)
    return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

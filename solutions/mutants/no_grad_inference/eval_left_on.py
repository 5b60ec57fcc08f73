"""Mutant: predict calls model.eval() and leaves the caller's model in eval mode.

Breaks the rule caller_objects.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    model.eval()
    with torch.no_grad():
        return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

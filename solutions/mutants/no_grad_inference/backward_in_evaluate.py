"""Mutant: calls loss.backward() while evaluating, which writes .grad.

Breaks the rule grad_untouched.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    with torch.no_grad():
        return model(x)


def evaluate(model, x, target):
    loss = F.mse_loss(model(x), target)
    loss.backward()
    return loss.item()

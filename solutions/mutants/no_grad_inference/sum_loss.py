"""Mutant: the sum of squared errors instead of their mean."""

import torch
import torch.nn.functional as F


def predict(model, x):
    with torch.no_grad():
        return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target, reduction='sum')
    return loss.item()

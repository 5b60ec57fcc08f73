"""Variant: torch.no_grad() as a decorator; float() instead of .item()."""

import torch
import torch.nn.functional as F


@torch.no_grad()
def predict(model, x):
    return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return float(loss)

"""Mutant: model.eval() in place of no_grad (eval changes dropout/batchnorm, not tracking)."""

import torch
import torch.nn.functional as F


def predict(model, x):
    model.eval()
    return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

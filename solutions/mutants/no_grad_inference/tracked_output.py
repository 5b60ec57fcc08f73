"""Mutant: no no_grad, so the output carries a graph.

Breaks the rule no_graph.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

"""Mutant: calls model.zero_grad() before predicting "to start clean", which drops the old
.grad a training loop left on the parameters; the output is right and has no graph.

Breaks the rule grad_untouched.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    model.zero_grad()
    with torch.no_grad():
        return model(x)


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

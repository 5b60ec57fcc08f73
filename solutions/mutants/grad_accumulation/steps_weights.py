"""Mutant: takes an SGD step per micro-batch, changing the weights.

Breaks the rule weights_unchanged.
"""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    model.zero_grad()
    n = x.shape[0]
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        loss = F.mse_loss(model(xb), tb) * xb.shape[0] / n
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad

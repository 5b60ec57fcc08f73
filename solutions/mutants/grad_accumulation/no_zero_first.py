"""Mutant: does not zero the old gradients first.

Breaks the rule zero_first.
"""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    n = x.shape[0]
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        loss = F.mse_loss(model(xb), tb) * xb.shape[0] / n
        loss.backward()

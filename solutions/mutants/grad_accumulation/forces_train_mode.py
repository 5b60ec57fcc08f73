"""Mutant: calls model.train() first, as if gradients needed train mode, and leaves a model the
caller had put in eval mode in train mode.

Breaks the rule caller_objects.
"""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    model.train()
    model.zero_grad()
    n = x.shape[0]
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        loss = F.mse_loss(model(xb), tb) * xb.shape[0] / n
        loss.backward()

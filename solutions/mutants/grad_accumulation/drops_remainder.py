"""Mutant: only whole micro-batches: the remaining rows are dropped."""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    model.zero_grad()
    n = x.shape[0]
    for i in range(n // chunk):
        xb, tb = x[i * chunk:(i + 1) * chunk], target[i * chunk:(i + 1) * chunk]
        loss = F.mse_loss(model(xb), tb) * xb.shape[0] / n
        loss.backward()

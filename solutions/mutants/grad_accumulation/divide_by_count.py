"""Mutant: divides each micro-batch's mean loss by the number of micro-batches (wrong when sizes differ)."""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    model.zero_grad()
    n = x.shape[0]
    count = len(x.split(chunk))
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        loss = F.mse_loss(model(xb), tb) / count
        loss.backward()

"""Mutant: sums the micro-batches' mean losses without scaling."""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    model.zero_grad()
    n = x.shape[0]
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        loss = F.mse_loss(model(xb), tb)
        loss.backward()

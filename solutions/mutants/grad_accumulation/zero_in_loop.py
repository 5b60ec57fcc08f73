"""Mutant: zeroes inside the loop, so only the last micro-batch's gradient remains."""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    n = x.shape[0]
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        model.zero_grad()
        loss = F.mse_loss(model(xb), tb) * xb.shape[0] / n
        loss.backward()

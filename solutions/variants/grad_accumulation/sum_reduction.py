"""Variant: sum reduction divided by all elements; grads zeroed by hand; index ranges."""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    for i in range(0, x.shape[0], chunk):
        xb, tb = x[i:i + chunk], target[i:i + chunk]
        loss = ((model(xb) - tb) ** 2).sum() / target.numel()
        loss.backward()

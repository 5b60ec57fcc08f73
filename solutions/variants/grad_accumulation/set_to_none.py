"""Variant: zero_grad(set_to_none=True) through the parameters; torch.chunk-free slicing by a while loop."""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    for p in model.parameters():
        p.grad = None
    start, n = 0, len(x)
    while start < n:
        xb, tb = x[start:start + chunk], target[start:start + chunk]
        (F.mse_loss(model(xb), tb, reduction='sum') / (n * tb.shape[1])).backward()
        start += chunk

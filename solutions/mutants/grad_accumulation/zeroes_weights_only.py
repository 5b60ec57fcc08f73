"""Mutant: zeroes only the layers' weight gradients and forgets the biases' old .grad.

Only the hidden check old_grads_everywhere catches it: the visible checks leave that open.
Breaks the rule zero_first.
"""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    for name, p in model.named_parameters():
        if name.endswith("weight"):
            p.grad = None
    n = x.shape[0]
    for xb, tb in zip(x.split(chunk), target.split(chunk)):
        loss = F.mse_loss(model(xb), tb) * xb.shape[0] / n
        loss.backward()

"""Mutant: one forward and backward on the whole batch instead of micro-batches: the gradients
are right, but the model gets all N rows at once, which is what accumulation avoids.

Breaks the rule micro_batches.
"""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    model.zero_grad()
    F.mse_loss(model(x), target).backward()

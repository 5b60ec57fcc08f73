"""Mutant: no zero_grad, so the head's old gradient is added to this step's.

Breaks the rule zero_old_grads.
"""

import torch
import torch.nn.functional as F


def trainable_names(model):
    return [name for name, p in model.named_parameters() if p.requires_grad]


def freeze_features(model):
    for p in model.features.parameters():
        p.requires_grad_(False)


def train_head_step(model, x, target, lr):
    freeze_features(model)
    opt = torch.optim.SGD(model.head.parameters(), lr=lr)
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    return loss.item()

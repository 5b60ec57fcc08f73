"""Mutant: freeze_features also calls model.zero_grad() "to start clean", dropping the head's
old .grad, which freezing has no business touching.

Breaks the rule caller_objects.
"""

import torch
import torch.nn.functional as F


def trainable_names(model):
    return [name for name, p in model.named_parameters() if p.requires_grad]


def freeze_features(model):
    for p in model.features.parameters():
        p.requires_grad_(False)
    model.zero_grad()


def train_head_step(model, x, target, lr):
    for p in model.features.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(model.head.parameters(), lr=lr)
    opt.zero_grad()
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    return loss.item()

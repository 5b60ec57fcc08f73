"""Mutant: freezes the whole model, head included.

Breaks the rule head_stays_tracked.
"""

import torch
import torch.nn.functional as F


def trainable_names(model):
    return [name for name, p in model.named_parameters() if p.requires_grad]


def freeze_features(model):
    for p in model.parameters():
        p.requires_grad_(False)


def train_head_step(model, x, target, lr):
    freeze_features(model)
    opt = torch.optim.SGD(model.head.parameters(), lr=lr)
    opt.zero_grad()
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    return loss.item()

"""Mutant: switches anomaly detection on for the whole program to debug the step and never
switches it off (torch.autograd.set_detect_anomaly(True) outside a `with`); the values stay right.

Breaks the rule global_modes.
"""

import torch
import torch.nn.functional as F


def trainable_names(model):
    return [name for name, p in model.named_parameters() if p.requires_grad]


def freeze_features(model):
    for p in model.features.parameters():
        p.requires_grad_(False)


def train_head_step(model, x, target, lr):
    torch.autograd.set_detect_anomaly(True)
    freeze_features(model)
    opt = torch.optim.SGD(model.head.parameters(), lr=lr)
    opt.zero_grad()
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    return loss.item()

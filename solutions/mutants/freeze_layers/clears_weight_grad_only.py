"""Mutant: clears only head.weight's old gradient, so an old gradient on head.bias adds into the step.

Only the hidden check train_head_step_old_bias_grad catches it: the visible checks leave that open.
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
    model.head.weight.grad = None
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    return loss.item()

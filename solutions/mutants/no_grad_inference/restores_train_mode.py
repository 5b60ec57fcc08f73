"""Mutant: switches to eval mode for inference and then calls model.train() "to put it back",
assuming the caller's model was in train mode; a model the caller had in eval mode comes back
in train mode.

Only the hidden check predict_keeps_model_state catches it: the visible checks leave that open.
Breaks the rule caller_objects.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    model.eval()
    with torch.no_grad():
        out = model(x)
    model.train()
    return out


def evaluate(model, x, target):
    with torch.no_grad():
        loss = F.mse_loss(model(x), target)
    return loss.item()

"""Variant: detach the output; inference_mode for the loss, computed by hand."""

import torch
import torch.nn.functional as F


def predict(model, x):
    return model(x).detach()


def evaluate(model, x, target):
    with torch.inference_mode():
        loss = ((model(x) - target) ** 2).mean()
    return loss.item()

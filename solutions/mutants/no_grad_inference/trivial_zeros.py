"""Trivial mutant: zeros."""

import torch


def predict(model, x):
    return torch.zeros(x.shape[0], model[-1].out_features, dtype=x.dtype)


def evaluate(model, x, target):
    return 0.0

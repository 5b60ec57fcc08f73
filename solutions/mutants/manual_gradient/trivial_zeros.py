"""Trivial: zeros of the right shapes everywhere."""

import torch


def df(x):
    return torch.zeros_like(x)


def grad_g(x, y):
    return torch.zeros_like(x), torch.zeros_like(y)


def mlp_grads(x, y, W1, b1, W2, b2):
    return {"W1": torch.zeros_like(W1), "b1": torch.zeros_like(b1),
            "W2": torch.zeros_like(W2), "b2": torch.zeros_like(b2)}


def autograd_df(x):
    return torch.zeros_like(x)

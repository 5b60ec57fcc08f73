"""Trivial mutant: zeros everywhere."""

import torch


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            p.zero_()


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.zero_()
    return w

"""Mutant: uses torch.optim.SGD, which the exercise forbids. Breaks the rule no_optim."""

import torch


def sgd_step(params, lr):
    opt = torch.optim.SGD(params, lr=lr)
    opt.step()
    opt.zero_grad()


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

"""Mutant: reaches torch.optim through a name built at run time (getattr(torch, "opt" + "im")),
which no static scan can read; the optimizer's step still runs. Breaks the rule no_optim."""

import torch


def sgd_step(params, lr):
    opt = getattr(torch, "opt" + "im").SGD(params, lr=lr)
    opt.step()
    opt.zero_grad()


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

"""Mutant: the functional SGD of torch.optim fetched with importlib from a module name built at
run time, called by a helper the scan of sgd_step never reads. Breaks the rule no_optim."""

import importlib

import torch


def _update(params, lr):
    sgd = vars(importlib.import_module("torch." + "optim.sgd"))["sgd"]
    with_grad = [p for p in params if p.grad is not None]
    sgd(with_grad, [p.grad for p in with_grad], [None] * len(with_grad),
        weight_decay=0.0, momentum=0.0, lr=lr, dampening=0.0, nesterov=False,
        maximize=False)


def sgd_step(params, lr):
    with torch.no_grad():
        _update(params, lr)
    for p in params:
        p.grad = None


def clamp_weights_(w, limit):
    with torch.no_grad():
        w.clamp_(-limit, limit)
    return w

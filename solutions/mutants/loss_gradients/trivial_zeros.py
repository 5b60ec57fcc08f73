"""Trivial mutant: zeros."""

import torch


def mse_grad_mean(pred, target):
    return torch.zeros_like(pred)


def mse_grad_sum(pred, target):
    return torch.zeros_like(pred)


def l1_grad_mean(pred, target):
    return torch.zeros_like(pred)

"""Variant: sigmoid written out as exp(-x)/(1+exp(-x))², helper functions, torch.func-free autograd_df."""

import math

import torch


def _sig(x):
    return torch.where(x >= 0, 1 / (1 + torch.exp(-x.abs())),
                       torch.exp(-x.abs()) / (1 + torch.exp(-x.abs())))


def df(x):
    s = _sig(x)
    term1 = torch.exp(-x * x) * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))
    term2 = (2 * x / (1 + x * x)) * s + torch.log1p(x * x) * s * (1 - s)
    return term1 + term2


def grad_g(x, y):
    t = torch.tanh(x * y)
    dx = y.pow(2) + y * (1 - t * t)
    dy = 2 * x * y + x * (1 - t * t)
    return (dx, dy)


def mlp_grads(x, y, W1, b1, W2, b2):
    n, o = y.shape
    z = torch.addmm(b1, x, W1.t())
    mask = z > 0
    h = z * mask
    out = torch.addmm(b2, h, W2.t())
    g_out = (out - y) * (2.0 / (n * o))
    g_h = g_out @ W2
    g_z = torch.where(mask, g_h, torch.zeros_like(g_h))
    return {
        "W2": torch.einsum("no,nh->oh", g_out, h),
        "b2": g_out.sum(dim=0),
        "W1": torch.einsum("nh,nd->hd", g_z, x),
        "b1": g_z.sum(dim=0),
    }


def autograd_df(x):
    xx = x.detach().clone()
    xx.requires_grad_(True)
    with torch.enable_grad():
        y = torch.exp(-xx**2) * torch.sin(3 * xx) + torch.log(1 + xx**2) / (1 + torch.exp(-xx))
        y.backward(torch.ones_like(y))
    return xx.grad.detach()

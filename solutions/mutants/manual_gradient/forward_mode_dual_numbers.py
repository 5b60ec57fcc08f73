"""Mutant: df computes f's derivative with forward-mode autograd (dual numbers), in a helper the
scan of df reaches only through df's name for it, through module-level aliases of torch's
dual-number primitives taken by strings (torch._C._enter_dual_level, torch._make_dual,
torch._unpack_dual).

Breaks the rule no_autograd_manual.
"""

import torch

_C = getattr(torch, "_" + "C")
_enter = getattr(_C, "_enter_" + "dual_level")
_leave = getattr(_C, "_exit_" + "dual_level")
_md = getattr(torch, "_make_" + "dual")
_ud = getattr(torch, "_unpack_" + "dual")


def f(x):
    return torch.exp(-(x**2)) * torch.sin(3 * x) + torch.log(1 + x**2) / (1 + torch.exp(-x))


def _tangent(x):
    level = _enter()
    try:
        d = _md(x, torch.ones_like(x), level=level)
        out = torch.exp(-(d**2)) * torch.sin(3 * d) + torch.log(1 + d**2) * torch.sigmoid(d)
        return _ud(out, level=level)[1]
    finally:
        _leave(level=level)


def df(x):
    return _tangent(x)


def grad_g(x, y):
    sech2 = 1 - torch.tanh(x * y) ** 2
    return y**2 + sech2 * y, 2 * x * y + sech2 * x


def mlp_grads(x, y, W1, b1, W2, b2):
    z = x @ W1.T + b1
    h = torch.relu(z)
    out = h @ W2.T + b2
    dout = 2 * (out - y) / out.numel()
    dz = (dout @ W2) * (z > 0).to(x.dtype)
    return {"W1": dz.T @ x, "b1": dz.sum(0), "W2": dout.T @ h, "b2": dout.sum(0)}


def autograd_df(x):
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(f(leaf).sum(), leaf)
    return grad

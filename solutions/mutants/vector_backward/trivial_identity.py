"""Trivial mutant: the upstream vector and the identity matrix."""

import torch


def vector_grad(x, v):
    return v.clone()


def jacobian(x):
    return torch.eye(x.shape[0], dtype=x.dtype)

"""Trivial: a zero penalty that is still connected to the critic's parameters."""

import torch


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    out = critic(real.detach())
    return (out * 0).sum()

"""Mutant: clip_grad_norm_ reached by functools.reduce(getattr, ...) in a helper that the static
scan of clip_grad_norm never follows. Breaks the rule no_nn_utils."""

import functools

import torch


def _torch_clip(params, max_norm, norm_type):
    clip = functools.reduce(getattr, ["nn", "utils", "clip_grad_norm_"], torch)
    return clip(params, max_norm, norm_type)


def clip_grad_norm(params, max_norm, norm_type):
    return _torch_clip(params, max_norm, norm_type)

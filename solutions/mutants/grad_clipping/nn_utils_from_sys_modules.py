"""Mutant: torch.nn.utils.clip_grad_norm_ fetched from sys.modules under the module that defines
it (torch.nn.utils.clip_grad). Breaks the rule no_nn_utils."""

import sys


def clip_grad_norm(params, max_norm, norm_type):
    return sys.modules["torch.nn.utils.clip_grad"].clip_grad_norm_(params, max_norm, norm_type)

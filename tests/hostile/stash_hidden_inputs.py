import os
import tempfile

import torch

# Every call stashes the tensors it was given (a module global, a file in its own folder, one
# in the temporary folder), then shows everything stashed so far: printed, and in the message
# of the exception it raises. Inputs of hidden checks must never reach a visible check's report
# (tests/sandbox/test_hostile.py, test_hidden_inputs_never_reach_a_visible_report).
_SEEN = []
_FILES = ["stash.txt", os.path.join(tempfile.gettempdir(), "stash.txt")]


def _stashed() -> str:
    lines = list(_SEEN)
    for path in _FILES:
        try:
            with open(path) as f:
                lines += f.read().splitlines()
        except OSError:
            pass
    return " | ".join(lines)


def _record(args) -> None:
    line = "; ".join(f"shape={tuple(a.shape)} values={a.detach().flatten().tolist()}"
                     for a in args if isinstance(a, torch.Tensor))
    _SEEN.append(line)
    for path in _FILES:
        try:
            with open(path, "a") as f:
                f.write(line + "\n")
        except OSError:
            pass


def _leak(*args, **kwargs):
    known = _stashed()
    _record(list(args) + list(kwargs.values()))
    print("STASH", known)
    raise RuntimeError("stash: " + known)


df = grad_g = mlp_grads = autograd_df = _leak

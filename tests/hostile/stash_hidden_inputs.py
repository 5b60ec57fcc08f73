import os
import tempfile

import torch

# Every call stashes the tensors it was given (a module global, a file in its own folder, one
# in the temporary folder), then shows everything stashed so far: printed, and in the message
# of the exception it raises. A call with nothing stashed yet answers as the key does: a check's
# first example (an edge, hypothesis's explicit example, which is not shrunk) passes, so the
# check makes later calls, and those show the stash. Inputs of hidden checks must never reach
# a visible check's report (tests/sandbox/test_hostile.py,
# test_hidden_inputs_never_reach_a_visible_report).
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
    line = "; ".join(
        f"shape={tuple(a.shape)} values={a.detach().flatten().tolist()}"
        for a in args
        if isinstance(a, torch.Tensor)
    )
    _SEEN.append(line)
    for path in _FILES:
        try:
            with open(path, "a") as f:
                f.write(line + "\n")
        except OSError:
            pass


def _leaking(name):
    key = globals()[name]  # the key's function (test_hostile prepends the key to this case)

    def call(*args, **kwargs):
        known = _stashed()
        _record(list(args) + list(kwargs.values()))
        if not known:  # a check's first call answers right, so its later calls are made
            return key(*args, **kwargs)
        print("STASH", known)
        raise RuntimeError("stash: " + known)

    return call


df, grad_g, mlp_grads, autograd_df = (
    _leaking(n) for n in ("df", "grad_g", "mlp_grads", "autograd_df")
)

import torch as _torch

# Appended to the answer key: correct values, but df reaches autograd's engine through torch's
# private namespace (torch._C._ImperativeEngine().run_backward is what .backward() calls).
_key_df = df


def df(x):
    if x.numel() < 0:
        _torch._C._ImperativeEngine().run_backward((x,), (x,), False, False, (x,), False, True)
    return _key_df(x)

import ctypes


def df(x):
    return ctypes.string_at(0)


def grad_g(x, y):
    import os
    os.abort()


mlp_grads = autograd_df = df

"""Trivial: each function hands back its inputs."""


def df(x):
    return x


def grad_g(x, y):
    return x, y


def mlp_grads(x, y, W1, b1, W2, b2):
    return {"W1": W1, "b1": b1, "W2": W2, "b2": b2}


def autograd_df(x):
    return x.detach().clone()

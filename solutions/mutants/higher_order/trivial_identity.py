"""Trivial mutant: returns the inputs."""


def second_derivative(x):
    return x.clone()


def hvp(x, v):
    return v.clone()

"""Trivial mutant: returns its input."""


def predict(model, x):
    return x


def evaluate(model, x, target):
    return float(target.mean())

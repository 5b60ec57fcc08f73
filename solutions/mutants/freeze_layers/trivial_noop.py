"""Trivial mutant: does nothing."""


def trainable_names(model):
    return []


def freeze_features(model):
    pass


def train_head_step(model, x, target, lr):
    return 0.0

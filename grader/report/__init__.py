"""Reporters: each formats the result model and computes nothing of its own."""

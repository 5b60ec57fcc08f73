"""A grader for PyTorch autograd exercises, with property-based checks against torch autograd."""

__version__ = "0.3.0"

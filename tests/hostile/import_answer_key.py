from solutions.manual_gradient import *  # noqa: F401,F403

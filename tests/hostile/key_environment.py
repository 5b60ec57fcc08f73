import os as _os

# The grader's environment (CI tokens, its virtualenv, pytest's own variables) stays out.
_leaked = [k for k in ("PYTEST_CURRENT_TEST", "VIRTUAL_ENV", "SHELL", "PWD", "GITHUB_TOKEN",
                       "CI_JOB_TOKEN") if k in _os.environ]
if _os.environ.get("HOME", _os.getcwd()) != _os.getcwd():
    _leaked.append("HOME")
if _leaked:
    raise RuntimeError("the grader's environment leaked: " + ", ".join(_leaked))

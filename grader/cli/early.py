"""The worker template, started first of all by `python -m grader` and the `grader` script
(grader.cli.entry calls start() before it imports anything else).

The template imports torch and what students' first calls would import lazily (about 3 s), and
a command that grades waits for it before its first worker. main() started it once it had
imported the command line, rich and the loaders and parsed the arguments (0.2 to 0.4 s later):
here it is started before any of that, on a guess from the raw arguments. main() takes it
(take()); a wrong guess costs only time: a template no command takes is closed unused (close()),
and a command whose template was not started early starts its own, as before.
"""

from __future__ import annotations

GRADING = {"check", "watch", "validate", "draw"}
"""The commands that grade, with the bare command (the course view): those main() starts
the template for, and those this module guesses it for."""
VALUED = {"--config", "--exercises-dir", "--submission", "--lang"}
"""Options before the command that take a value (grader.cli.parser's; tests/cli/test_early.py
holds the two lists equal)."""
SAYS_ONLY = {"-h", "--help", "--version"}

_started = None


def wanted(argv: list[str]) -> bool:
    """Whether this command line grades (a guess: argparse has the last word)."""
    if any(arg in SAYS_ONLY for arg in argv):
        return False
    args = iter(argv)
    for arg in args:
        if arg in VALUED:
            next(args, None)
        elif not arg.startswith("-"):
            return arg in GRADING
    return True  # no command: the course view grades


def start(argv: list[str]) -> None:
    global _started
    if _started is None and wanted(argv):
        from grader.sandbox.client import Sandbox  # imports no torch: the template does

        _started = Sandbox().start()


def take():
    """The template started here, now the caller's to close (None: none was started)."""
    global _started
    started, _started = _started, None
    return started


def close() -> None:
    """End a template no command took."""
    started = take()
    if started is not None:
        started.close()

"""`python -m grader` and the `grader` script: the worker template started first of all
(grader.cli.early), then the command line."""

from __future__ import annotations

import sys

from grader.cli import early


def run() -> None:
    early.start(sys.argv[1:])
    try:
        from grader.cli.main import run as main_run

        main_run()  # ends the process (grader.cli.main.leave)
    finally:  # reached only if it did not: Ctrl-C while the command line imports, say
        early.close()

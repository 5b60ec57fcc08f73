"""What a notebook's magics do in a worker: the `get_ipython()` that the source made of a notebook
calls (grader.submissions.notebook turns `%time r = f()` into
`get_ipython().run_line_magic('time', 'r = f()')`, as IPython itself does).

A magic that runs code (`%time`, `%timeit`, `%%time`, `%%capture`, ...) runs that code once, in
the namespace the notebook's cell runs in, with the cell's line numbers (so a traceback names
the cell's line); anything else (a shell escape `!pip`, `%matplotlib`, `%%bash`, ...) cannot run
in a worker and is skipped with a note on the worker's output.
"""

from __future__ import annotations

import ast
import builtins
import os
import sys

IN_WORKER = "GRADER_IN_WORKER"
"""Set in a worker: a notebook's own grader.check() cell does nothing while it is graded (grader
reads it by name, importing nothing: a worker cannot import the grader's command line)."""

RUNS_A_STATEMENT = {"time", "timeit", "prun", "capture", "debug"}
"""Line magics whose argument, after its options, is a statement that runs."""
RUNS_THE_CELL = {"time", "timeit", "prun", "capture", "debug", "python", "python3"}
"""Cell magics whose cell body is Python that runs."""


def _note(what: str) -> None:
    print(f"[grader] skipped {what}: it does not run while grading", file=sys.stderr)


def _statement(magic: str, line: str) -> str:
    """The code a line magic runs: its line without the magic's options (`-n 3 f(a)` is
    `f(a)`)."""
    if magic == "capture":  # %capture [--no-stderr] [name] is a cell magic's; no statement
        return ""
    words = line.split()
    k = 0
    while k < len(words) and words[k].startswith("-"):
        takes = words[k][:2] in ("-n", "-r", "-s", "-T", "-D", "-l") and len(words[k]) == 2
        k += 2 if takes else 1
    rest = line
    for word in words[:k]:
        rest = rest.split(word, 1)[1]
    return rest.strip()


def _run(code: str, frame, first_line: int) -> None:
    """Run code as if written in frame's file from first_line on, in frame's namespace."""
    if not code.strip():
        return
    tree = ast.parse(code, frame.f_code.co_filename, "exec")
    ast.increment_lineno(tree, first_line - 1)
    compiled = compile(tree, frame.f_code.co_filename, "exec")
    namespace = frame.f_globals
    if frame.f_locals is namespace:
        exec(compiled, namespace)
    else:  # a magic inside a function: its locals, as IPython would not, but readable
        exec(compiled, namespace, frame.f_locals)


class Shell:
    """The part of IPython's InteractiveShell that a graded notebook's source calls."""

    def run_line_magic(self, magic: str, line: str, _stack_depth: int = 1):
        frame = sys._getframe(1)
        if magic in RUNS_A_STATEMENT:
            _run(_statement(magic, line), frame, frame.f_lineno)
        else:
            _note(f"%{magic} {line}".strip())

    def run_cell_magic(self, magic: str, line: str, cell: str):
        frame = sys._getframe(1)
        if magic in RUNS_THE_CELL:
            # The cell's body starts on the line after the %% line the call stands on.
            _run(cell, frame, frame.f_lineno + 1)
        else:
            _note(f"%%{magic} {line}".strip() + " (the whole cell)")

    def system(self, cmd: str):
        _note(f"!{cmd}")

    def getoutput(self, cmd: str, split: bool = True, depth: int = 0):
        _note(f"!{cmd}")
        return []

    def __getattr__(self, name: str):
        def skipped(*args, **kwargs):
            _note(f"get_ipython().{name}()")

        return skipped


_shell = Shell()


def get_ipython() -> Shell:
    """What a notebook's `get_ipython()` returns while it is graded."""
    return _shell


def install() -> None:
    """Make get_ipython() a builtin, as IPython does, before the student's file is imported;
    and say that this is a worker (grader.check() in the notebook then does nothing)."""
    builtins.get_ipython = get_ipython  # type: ignore[attr-defined]
    os.environ[IN_WORKER] = "1"

"""Turns: where exercises are graded at once, the grader's own code runs one thread at a time.

A student's `check` grades two exercises at once (grader.grading.grade.at_once), each in a thread
of its own, so that one exercise's worker computes while the grader judges another's replies.
What overlaps is only the waiting: a grading thread holds the turn (`taken`) whenever it runs
the grader's code (kinds, references, plugins, hypothesis), and lets it go only while it waits
on the sandbox (`waiting`: a worker's reply, a worker's start, the template). So code that sets
process-wide state for a while (torch's anomaly mode, the warnings filters, a plugin's globals)
never runs beside other judging, as when one thread grades everything. In a thread that holds
no turn (one exercise at a time, `batch`), `waiting` does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_TURN = threading.Lock()
_held = threading.local()


@contextmanager
def taken() -> Iterator[None]:
    """Run the block as one of several grading threads: with the turn, but while it waits."""
    _TURN.acquire()
    _held.on = True
    try:
        yield
    finally:
        _held.on = False
        _TURN.release()


@contextmanager
def waiting() -> Iterator[None]:
    """Let another grading thread run the grader's code while this one waits on the sandbox."""
    if not getattr(_held, "on", False):
        yield
        return
    _held.on = False
    _TURN.release()
    try:
        yield
    finally:
        _TURN.acquire()
        _held.on = True


def held() -> bool:
    """Whether this thread holds the turn (tests: the grader's code never runs without it)."""
    return bool(getattr(_held, "on", False))


def in_order(
    job: Callable[[T], R],
    items: Sequence[T],
    at_once: int,
    begin: Sequence[int] | None = None,
) -> Iterator[R]:
    """job(item) for each item, yielded in the items' order: in this thread one after the
    other where at_once <= 1 (or one item), else in up to at_once threads of their own, each
    job with the turn (taken), begun in the order of `begin` (indices into items; the longest
    first, so that no long job is left to run alone at the end) or else the items' own.

    An exception a job raises is raised here, after the results before it that are done, and
    no job is begun after it (those begun meanwhile end on their own). The threads are daemons:
    a caller that stops early (Ctrl-C) is not held up by them; they take no new job once it
    has, and end with their workers (the caller closes the sandbox)."""
    if at_once <= 1 or len(items) <= 1:
        for item in items:
            yield job(item)
        return
    outcomes: dict[int, R] = {}
    failed: list[BaseException] = []
    order = iter(range(len(items)) if begin is None else begin)
    changed = threading.Condition()
    stopped = [False]

    def run() -> None:
        while True:
            with changed:
                i = None if failed or stopped[0] else next(order, None)
            if i is None:
                return
            try:
                with taken():
                    value = job(items[i])
            except BaseException as exc:  # raised in the caller's thread
                with changed:
                    failed.append(exc)
                    changed.notify_all()
                return
            with changed:
                outcomes[i] = value
                changed.notify_all()

    threads = [
        threading.Thread(target=run, name=f"grader-turn-{k}", daemon=True)
        for k in range(min(at_once, len(items)))
    ]
    for thread in threads:
        thread.start()
    try:
        for i in range(len(items)):
            with changed:
                # in short waits: Ctrl-C reaches a waiting caller on every platform
                while not changed.wait_for(lambda i=i: i in outcomes or failed, 0.25):
                    pass
                if i not in outcomes:
                    raise failed[0]
                value = outcomes.pop(i)
            yield value
    finally:
        with changed:
            stopped[0] = True
    for thread in threads:  # all done: none is left running (a later fork sees no thread)
        thread.join()

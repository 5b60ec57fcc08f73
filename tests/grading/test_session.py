"""A session streams examples to its worker: several in flight, each call with its own limit."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import threading
import time

import pytest
from conftest import SOLUTIONS

from grader.checks import KINDS
from grader.common import wire
from grader.grading import examples
from grader.grading.session import ImportFailure, Session
from grader.sandbox import starvation
from grader.sandbox.workers import Worker
from grader.specs import strategies

SLOW = """

import time as _time

_clip = clip_grad_norm


def clip_grad_norm(*args, **kwargs):
    _time.sleep(0.3)
    return _clip(*args, **kwargs)
"""


def _session(sandbox, exercise, tmp_path, source: str, config):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / exercise.file).write_text(source)
    session = Session(sandbox, exercise, str(scratch), config)
    session.start()
    return session


def test_each_call_has_its_own_limit_when_requests_are_in_flight(
    sandbox, exercises, fast_config, tmp_path
):
    """Calls of 0.3 s under a 0.5 s limit: serially each passes; streamed, none may be charged
    for the time the worker spent on the calls before it."""
    ex = exercises["grad_clipping"]
    config = dataclasses.replace(fast_config, time_per_call=0.5)
    check = next(
        c for c in ex.checks if c.function == "clip_grad_norm" and not KINDS[c.kind].static
    )
    kind = KINDS[check.kind]
    drawn = examples.draw(ex, check, kind, 6, strategies.seed_for(1, ex, check))
    key = (SOLUTIONS / "grad_clipping.py").read_text()
    session = _session(sandbox, ex, tmp_path, key + SLOW, config)
    try:
        got = [(i, reply.get("ok")) for i, reply, _ in session.stream(check, kind, drawn)]
    finally:
        session.close()
    assert got == [(i, True) for i in range(len(drawn))]


def test_stopping_a_stream_early_restarts_from_the_scratch_copy_the_grader_wrote(
    sandbox, exercises, fast_config, tmp_path
):
    ex = exercises["grad_clipping"]
    check = next(c for c in ex.checks if not KINDS[c.kind].static)
    kind = KINDS[check.kind]
    drawn = examples.draw(ex, check, kind, 20, strategies.seed_for(2, ex, check))
    assert len(drawn) > 2
    session = _session(
        sandbox, ex, tmp_path, (SOLUTIONS / "grad_clipping.py").read_text(), fast_config
    )
    try:
        stream = session.stream(check, kind, drawn)
        first = next(stream)
        old = session.worker
        (tmp_path / "scratch" / "written-by-a-call.txt").write_text("state")
        stream.close()  # a failure was found: the answers still owed are not wanted
        assert first[0] == 0 and session.worker is None and old.status is not None
        # what the calls may have left is gone: the state does not depend on timing
        assert sorted(p.name for p in (tmp_path / "scratch").iterdir()) == [ex.file]
        reply, _ = session.call(check, kind, drawn[1])  # a fresh worker answers
        assert reply.get("ok") is True and session.worker is not old
    finally:
        session.close()


class _SlowStart:
    """A sandbox whose worker takes `setup` seconds to set itself up (its namespaces and
    mounts, on a loaded machine), then `importing` seconds to import the student's file."""

    def __init__(self, setup: float, importing: float):
        self.setup, self.importing = setup, importing

    def spawn(self, **request):
        ours, theirs = socket.socketpair()

        def worker():
            time.sleep(self.setup)
            wire.send(theirs, {"importing": True})
            time.sleep(self.importing)
            with contextlib.suppress(OSError):  # a worker past its limit was ended meanwhile
                wire.send(theirs, {"ready": True, "tampered": []})

        threading.Thread(target=worker, daemon=True).start()
        self.end = theirs
        return Worker(self, 0, ours, None, meter=starvation.Meter({}))

    def reap(self, pid, grace, groups=()):
        self.end.close()
        return {"killed": True, "exit": None, "signal": None}


def test_a_workers_own_start_is_the_graders_time_and_the_import_alone_has_the_limit(
    tmp_path, exercises, fast_config
):
    """The import's time limit counts from the worker's "importing": a set-up longer than the
    limit (a loaded machine's kernel) is no timeout; an import longer than it still is."""
    config = dataclasses.replace(fast_config, time_per_call=0.3)
    exercise = exercises["manual_gradient"]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / exercise.file).write_text("")
    session = Session(_SlowStart(setup=1.0, importing=0.0), exercise, str(scratch), config)
    session.start()
    assert session.worker is not None
    session = Session(_SlowStart(setup=0.0, importing=1.0), exercise, str(scratch), config)
    with pytest.raises(ImportFailure) as failed:
        session.start()
    assert failed.value.kind == "timeout"

"""A session streams examples to its worker: several in flight, each call with its own limit."""

from __future__ import annotations

import dataclasses

from conftest import SOLUTIONS

from grader.checks import KINDS
from grader.grading import examples
from grader.grading.session import Session
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

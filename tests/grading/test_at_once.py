"""Exercises graded two at a time (a student's check) give the results one at a time gives."""

from __future__ import annotations

import threading

import pytest
from conftest import COURSE, SOLUTIONS, hidden_only, verdicts_of

from grader.common import turns
from grader.grading import checkrun
from grader.grading import grade as grading
from grader.grading.grade import grade
from grader.sandbox.workers import Worker


@pytest.fixture
def mixed(tmp_path):
    """One student's folder, the whole course: a caught mutant for every other exercise (a
    failure that hypothesis shrinks), the answer key for the rest."""
    folder = tmp_path / "student"
    folder.mkdir()
    for n, ex in enumerate(COURSE):
        mutants = [
            m for m in sorted((SOLUTIONS / "mutants" / ex).glob("*.py")) if not hidden_only(m)
        ]
        source = mutants[0] if n % 2 == 0 and mutants else SOLUTIONS / f"{ex}.py"
        (folder / f"{ex}.py").write_bytes(source.read_bytes())
    return folder


@pytest.mark.spread
def test_the_course_graded_two_at_a_time_is_graded_as_one_at_a_time(
    mixed, sandbox, exercises, fast_config, monkeypatch
):
    """The real course, hypothesis shrinking in two threads: the same verdicts and
    counterexamples; the grader's code (the judging) ran one thread at a time, always with the
    turn, while two exercises' workers were waited on at once."""
    chosen = [exercises[e] for e in COURSE]
    judging = []  # threads judging now
    most = [0]
    threads = set()
    real_judged = checkrun.judged

    def judged(*args, **kwargs):
        assert turns.held() or threading.current_thread() is threading.main_thread()
        judging.append(threading.current_thread())
        most[0] = max(most[0], len(judging))
        threads.add(threading.current_thread().name)
        try:
            return real_judged(*args, **kwargs)
        finally:
            judging.remove(threading.current_thread())

    waiting = []  # threads waiting on a worker now
    most_waiting = [0]
    real_receive = Worker._receive

    def receive(self, *args):
        waiting.append(threading.current_thread())
        most_waiting[0] = max(most_waiting[0], len(waiting))
        try:
            return real_receive(self, *args)
        finally:
            waiting.remove(threading.current_thread())

    monkeypatch.setattr(checkrun, "judged", judged)
    monkeypatch.setattr(Worker, "_receive", receive)
    shown = []
    two = grade(
        submission_dir=mixed,
        exercises=chosen,
        config=fast_config,
        sandbox=sandbox,
        at_once=2,
        on_exercise=lambda e: shown.append(e.id),
    )
    assert shown == COURSE  # shown in the course's order, as graded one at a time
    assert most == [1] and len(threads) == 2
    assert most_waiting[0] == 2
    one = grade(submission_dir=mixed, exercises=chosen, config=fast_config, sandbox=sandbox)
    assert verdicts_of(two) == verdicts_of(one)
    statuses = [e.status for e in one.exercises]
    assert statuses == ["failed" if n % 2 == 0 else "passed" for n in range(len(COURSE))]
    assert all(
        any(c.counterexample for c in e.checks) for e in one.exercises if e.status == "failed"
    )


def test_a_students_commands_grade_two_at_once_where_there_are_two_cores(monkeypatch):
    monkeypatch.delenv("GRADER_AT_ONCE", raising=False)
    monkeypatch.setattr(grading, "_cores", lambda: 4)
    assert grading.at_once() == 2
    monkeypatch.setattr(grading, "_cores", lambda: 1)
    assert grading.at_once() == 1
    monkeypatch.setattr(grading, "_cores", lambda: 4)
    monkeypatch.setenv("GRADER_AT_ONCE", "1")
    assert grading.at_once() == 1

"""Turns: jobs run at once in threads, yielded in order, the grader's own code one at a time."""

from __future__ import annotations

import threading
import time

import pytest

from grader.common import turns

PATIENCE = 60  # seconds: only a deadlock reaches this, on however busy a machine


def test_one_at_a_time_runs_in_the_callers_thread_without_a_turn():
    seen = []

    def job(x):
        seen.append((threading.current_thread(), turns.held()))
        return x * 2

    assert list(turns.in_order(job, [1, 2, 3], 1)) == [2, 4, 6]
    assert seen == [(threading.current_thread(), False)] * 3
    assert list(turns.in_order(job, [5], 2)) == [10]  # one item: no thread either
    assert seen[-1] == (threading.current_thread(), False)


def test_results_come_in_the_items_order_whatever_order_they_finish_in():
    first_may_finish = threading.Event()

    def job(x):
        if x == 0:  # the first item waits (on the sandbox) until a later one has finished
            with turns.waiting():
                assert first_may_finish.wait(PATIENCE)
        elif x == 2:
            first_may_finish.set()
        return x

    assert list(turns.in_order(job, [0, 1, 2, 3], 2)) == [0, 1, 2, 3]


def test_the_grader_code_of_two_jobs_never_runs_at_once_but_their_waits_do():
    inside = []  # jobs running the grader's code now
    most = [0]
    waits = []  # jobs waiting on the sandbox now
    most_waiting = [0]
    both_waiting = threading.Barrier(2, timeout=PATIENCE)

    def job(x):
        assert turns.held()
        inside.append(x)
        most[0] = max(most[0], len(inside))
        time.sleep(0.01)  # long enough for the other thread to try
        inside.remove(x)
        with turns.waiting():
            assert not turns.held()
            waits.append(x)
            most_waiting[0] = max(most_waiting[0], len(waits))
            if x < 2:
                both_waiting.wait()  # both first jobs wait at once: only possible without a turn
            waits.remove(x)
        assert turns.held()
        return x

    assert list(turns.in_order(job, list(range(6)), 2)) == list(range(6))
    assert most == [1]
    assert most_waiting[0] == 2


def test_a_jobs_exception_is_raised_in_its_place_and_no_new_job_starts_after_it():
    started = []

    def job(x):
        started.append(x)
        if x == 1:
            raise ValueError("the grader's own bug")
        return x

    got = []
    with pytest.raises(ValueError, match="own bug"):
        for value in turns.in_order(job, list(range(50)), 2):
            got.append(value)
    assert got == [0]
    assert len(started) <= 4  # begun before it raised, or meanwhile by the other thread


def test_a_caller_that_stops_early_is_not_held_up_by_a_job_still_running():
    release = threading.Event()

    def job(x):
        if x == 1:
            with turns.waiting():
                release.wait(PATIENCE)  # a worker that has not answered yet
        return x

    results = turns.in_order(job, [0, 1, 2], 2)
    start = time.monotonic()
    assert next(results) == 0
    results.close()  # Ctrl-C in the caller: it goes on at once
    assert time.monotonic() - start < PATIENCE / 2
    release.set()


def test_jobs_begin_in_the_order_asked_and_are_yielded_in_the_items_order():
    begun = []

    def job(x):
        begun.append(x)
        return x

    assert list(turns.in_order(job, [0, 1, 2, 3, 4], 2, begin=[4, 3, 2, 1, 0])) == [0, 1, 2, 3, 4]
    assert set(begun[:2]) == {4, 3} and sorted(begun) == [0, 1, 2, 3, 4]  # picked first


def test_an_exception_in_a_job_begun_first_is_raised_even_before_the_earlier_items_begin():
    def job(x):
        if x == 2:
            raise ValueError("the grader's own bug")
        with turns.waiting():
            time.sleep(0.05)
        return x

    with pytest.raises(ValueError, match="own bug"):
        list(turns.in_order(job, [0, 1, 2], 2, begin=[2, 1, 0]))

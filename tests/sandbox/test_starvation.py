"""A timeout is the student's when their code spun or slept, never when it was starved of CPU."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from conftest import ROOT, SOLUTIONS

from grader.common import wire
from grader.grading.grade import grade
from grader.loader import specfile
from grader.loader.config import Config
from grader.sandbox import starvation
from grader.sandbox.client import Sandbox
from grader.sandbox.starvation import (
    Load,
    Meter,
    judge,
    more_time,
    process_cpu,
    process_stall,
)
from grader.sandbox.workers import Worker, WorkerLost


@pytest.mark.parametrize(
    "load, verdict",
    [
        (Load(wall=1.0, cpu=0.98, stall=0.02), "spun"),  # an endless loop, CPU to spare
        (Load(wall=1.0, cpu=1.9, stall=0.95), "spun"),  # busy children of its own
        (Load(wall=2.0, cpu=0.97, stall=1.0), "spun"),  # a busy machine: it got its limit
        (Load(wall=1.0, cpu=0.6, stall=0.4), "starved"),  # a busy machine, short of its limit
        (Load(wall=1.0, cpu=0.01, stall=0.0), "slept"),  # time.sleep, a blocked read
        (Load(wall=1.0, cpu=0.1, stall=0.2), "slept"),  # mostly not runnable
        (Load(wall=1.0, cpu=0.1, stall=0.85), "starved"),  # runnable, kept off the CPU
        (Load(wall=1.0, cpu=0.4, stall=0.4), "starved"),
        (Load(wall=1.0, cpu=0.96, machine_stall=0.9), "spun"),  # no group stall: CPU time tells
        (Load(wall=1.0, cpu=0.8, machine_stall=0.9), "starved"),
        (Load(wall=1.0, cpu=0.05, machine_stall=0.9), "starved"),
        (Load(wall=1.0, cpu=0.05, machine_stall=0.1), "slept"),
        (Load(wall=1.0, cpu=0.96), "spun"),  # no stall measured at all
        (Load(wall=1.0, cpu=0.1), "unknown"),  # slept or starved: cannot say
        (Load(wall=1.0, stall=0.9, machine_stall=0.9), "unknown"),  # no CPU time: cannot say
        (Load(wall=0.0, cpu=0.0, stall=0.0), "unknown"),
        (None, "unknown"),
    ],
)
def test_judge(load, verdict):
    assert judge(load, 1.0) == verdict


@pytest.mark.parametrize(
    "load, extra",
    [
        (Load(wall=1.0, cpu=0.98, stall=0.02), 0.0),  # spun: its time is up
        (Load(wall=1.0, cpu=0.01, stall=0.0), 0.0),  # slept: its time is up
        (Load(wall=1.0, cpu=0.4, stall=0.6), 0.6),  # starved: what it lacks of its limit
        (Load(wall=1.0, cpu=0.1), 0.9),  # cannot say why it lacks CPU: it may have it
        (Load(wall=2.0, cpu=0.92, stall=1.0), 0.1),  # at least STEP of the limit
        (Load(wall=5.8, cpu=0.2, stall=5.0), pytest.approx(0.2)),  # up to STRETCH, no further
        (Load(wall=6.0, cpu=0.2, stall=5.0), 0.0),
        (Load(wall=1.0, stall=1.0), 0.0),  # no CPU time: the deadline is final
        (None, 0.0),
    ],
)
def test_more_time_until_the_call_had_its_limit_as_cpu_time(load, extra):
    assert starvation.STRETCH == 6.0 and starvation.STEP == 0.1
    assert more_time(load, 1.0) == extra


def test_process_cpu_where_there_is_no_group():
    """Without a control group the worker process's own CPU time is measured (Linux: its
    /proc/<pid>/stat, threads and reaped children included)."""
    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        pytest.skip("no /proc on this platform")
    meter = Meter({}, pid=os.getpid())
    since = meter.read()
    start = time.process_time()
    while time.process_time() - start < 0.2:
        pass
    assert meter.load(since).cpu == pytest.approx(0.2, abs=0.05)
    assert Meter({}, pid=None).read().cpu is None and process_cpu(2**22 + 7) is None
    grouped = Meter({"usage": "/nonexistent/cpu.stat"}, pid=os.getpid())
    assert grouped.read().cpu is None  # a group's meter is never mixed with a process's


class FakeMeter:
    """Readings in which the call gets `share` of a CPU and waits for a CPU `stalls` of the
    time (None: not measured)."""

    def __init__(self, share: float, stalls: float | None = 0.0):
        self.share, self.stalls, self.t0 = share, stalls, time.monotonic()

    def read(self) -> starvation.Reading:
        at = time.monotonic()
        ran = at - self.t0
        return starvation.Reading(
            at=at,
            cpu=self.share * ran,
            stall=None if self.stalls is None else self.stalls * ran,
            machine_stall=None,
        )

    load = Meter.load


@pytest.mark.skipif(
    process_stall(os.getpid()) is None, reason="the kernel keeps no run-queue figures"
)
def test_without_a_group_a_sleeping_call_on_a_busy_machine_slept_and_a_runnable_one_starved():
    """Without a control group (portable workers, no cgroups), the process's own run-queue
    wait tells a call that sleeps on a busy machine from one that is starved: the machine's
    pressure alone would call both starved (a 3 s sleep passed a 1 s limit at load 6)."""
    with one_cpu() as cpus:
        busy = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load(cpus))
        ]
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # the interpreters have started
        meters = {
            name: Meter({}, pid=p.pid) for name, p in (("sleeper", sleeper), ("spinner", spinner))
        }
        since = {name: m.read() for name, m in meters.items()}
        time.sleep(1.5)
        loads = {name: m.load(since[name]) for name, m in meters.items()}
    finally:
        for p in [*busy, sleeper, spinner]:
            p.kill()
            p.wait()
    assert loads["sleeper"].stall is not None and loads["sleeper"].stall < 0.1, loads
    assert judge(loads["sleeper"], 1.0) == "slept", loads
    assert judge(loads["spinner"], 1.0) in ("starved", "spun"), loads  # never "slept"
    assert loads["spinner"].cpu + loads["spinner"].stall >= 0.5 * loads["spinner"].wall, loads


@pytest.mark.parametrize(
    "share, stalls, starved, lasts",
    [
        (1.0, 0.0, False, (0.2, 0.35)),  # an endless loop on a free machine: at its limit
        (0.5, 0.5, False, (0.38, 0.6)),  # at half a CPU: when it has had its limit
        (0.1, 0.9, True, (1.15, 1.5)),  # starved: STRETCH times its limit, then named so
        (0.0, 0.0, False, (0.2, 0.35)),  # asleep while CPUs are free: at its limit
        (0.0, None, False, (1.15, 1.5)),  # no stall measured: given the time, then a timeout
    ],
)
def test_receive_stretches_a_starved_call_until_it_had_its_limit(share, stalls, starved, lasts):
    ours, theirs = socket.socketpair()
    meter = FakeMeter(share, stalls)
    worker = Worker(_NoReap(), 0, ours, None, meter=meter)  # type: ignore[arg-type]
    worker.since = meter.read()
    began = time.monotonic()
    try:
        with pytest.raises(WorkerLost) as lost:
            worker.receive(0.2, limit=0.2)
    finally:
        theirs.close()
    took = time.monotonic() - began
    assert lost.value.kind == "timeout" and lost.value.starved is starved
    assert lasts[0] <= took <= lasts[1] + 0.5, took  # (a busy machine may wake it late)
    assert worker.stretched == pytest.approx(max(0.0, took - 0.2), abs=0.1)


def test_receive_with_a_final_deadline_and_a_reply_within_the_stretch():
    ours, theirs = socket.socketpair()
    worker = Worker(_NoReap(), 0, ours, None, meter=FakeMeter(0.1, 0.9))  # type: ignore[arg-type]
    worker.since = worker.meter.read()
    with pytest.raises(WorkerLost) as lost:  # no limit: the deadline is final
        worker.receive(0.1)
    assert lost.value.kind == "timeout" and not lost.value.starved and worker.stretched == 0
    ours, theirs = socket.socketpair()
    worker = Worker(_NoReap(), 0, ours, None, meter=FakeMeter(0.1, 0.9))  # type: ignore[arg-type]
    worker.since = worker.meter.read()
    threading.Timer(0.5, lambda: wire.send(theirs, {"ok": True})).start()
    header, _ = worker.receive(0.2, limit=0.2)  # starved past its deadline, then it answers
    assert header["ok"] is True and worker.stretched > 0.2
    theirs.close()
    ours.close()


class _NoReap:
    def reap(self, pid, grace, groups=()):
        return {"killed": True, "exit": None, "signal": None}


def test_meter_reads_v1_v2_and_pressure_files(tmp_path, monkeypatch):
    (tmp_path / "cpuacct.usage").write_text("1500000000\n")
    (tmp_path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
    (tmp_path / "cpu.pressure").write_text(
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=750000\n"
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"
    )
    (tmp_path / "garbage").write_text("some total=lots\n")
    monkeypatch.setattr(starvation, "MACHINE_PRESSURE", str(tmp_path / "cpu.pressure"))
    v1 = Meter({"usage": str(tmp_path / "cpuacct.usage")}).read()
    assert (v1.cpu, v1.stall, v1.machine_stall) == (1.5, None, 0.75)
    v2 = Meter({"usage": str(tmp_path / "cpu.stat"), "pressure": str(tmp_path / "cpu.pressure")})
    assert (v2.read().cpu, v2.read().stall) == (2.5, 0.75)
    broken = Meter(
        {"usage": str(tmp_path / "missing"), "pressure": str(tmp_path / "garbage"), "junk": 3}
    )
    assert (broken.read().cpu, broken.read().stall) == (None, None)
    assert judge(broken.load(broken.read()), 1.0) == "unknown"  # a timeout, as always
    since = v2.read()
    (tmp_path / "cpu.stat").write_text("usage_usec 2600000\n")
    (tmp_path / "cpu.pressure").write_text("some avg10=0 avg60=0 avg300=0 total=1650000\n")
    load = v2.load(since)
    assert load.wall >= 0 and load.cpu == pytest.approx(0.1) and load.stall == pytest.approx(0.9)


SPIN = "def df(x):\n    while True:\n        pass\n\n\ngrad_g = mlp_grads = autograd_df = df\n"
CONFIG = Config(examples=2, time_per_call=0.5, time_per_exercise=30.0)


@pytest.fixture(scope="module")
def df_only(tmp_path_factory):
    """manual_gradient with its first check only (df_value), no hints and no rules (they name
    later checks)."""
    root = tmp_path_factory.mktemp("specs") / "manual_gradient"
    root.mkdir()
    text = (ROOT / "exercises/manual_gradient/exercise.yaml").read_text()
    text = text[: text.index("hints:\n")] + text[text.index("dtype:") :]
    head, checks = text.split("checks:\n", 1)
    head = head[: head.index("\nrules:\n") + 1]  # the rules it states belong to later checks
    first = checks.split("\n  - id: ", 2)[0]
    (root / "exercise.yaml").write_text(head + "checks:\n" + first + "\n")
    return specfile.discover(root.parent)


@pytest.mark.parametrize(
    "measured, status", [("starved", "error"), ("spun", "timeout"), ("unknown", "timeout")]
)
def test_a_starved_timeout_is_retried_then_named_the_machines(
    measured, status, tmp_path, sandbox, df_only, monkeypatch
):
    walls = []

    def fake(load, limit):
        walls.append(load.wall if load else 0.0)
        return measured

    monkeypatch.setattr(starvation, "judge", fake)
    (tmp_path / "manual_gradient.py").write_text(SPIN)
    (row,) = (
        grade(submission_dir=tmp_path, exercises=df_only, config=CONFIG, sandbox=sandbox)
        .exercises[0]
        .checks
    )
    assert row.status == status, row.message
    longest = starvation.STRETCH * CONFIG.time_per_call
    if measured == "spun":  # it had its fair chance: a timeout at the limit, no more time
        assert max(walls) < longest / 2 and "limit of 0.5 s per call" in row.message.en
        return
    # Starved, or unknown why it lacks CPU time: given up to STRETCH times its limit.
    assert max(walls) >= longest * 0.95
    if measured == "starved":  # once more in a fresh worker, then the machine is named
        restarts = sum(b < a for a, b in zip(walls, walls[1:]))
        assert restarts == 1, walls
        assert "overloaded" in row.message.en and "not your fault" in row.message.en
        assert "terlalu sibuk" in row.message.id and row.counterexample
    else:  # a sleep, or starved, no meter says: the student's timeout, as always
        assert "limit of 0.5 s per call" in row.message.en


def _burners(n: int) -> list[subprocess.Popen]:
    """n processes that spin, each in a session of its own (with the kernel's autogroups a
    session is one entity of the scheduler, as a worker's control group or another grading
    process is)."""
    return [
        subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", "while True: pass", "86422"], start_new_session=True
        )
        for _ in range(n)
    ]


def _stop(busy: list[subprocess.Popen]) -> None:
    for proc in busy:
        proc.kill()
    for proc in busy:
        proc.wait()


@contextlib.contextmanager
def one_cpu():
    """This process, and every process it starts meanwhile, runs on one CPU. The loaded-machine
    tests make their load there, around the grader under test and its workers: the machine is
    as busy for them as with the load spread over every CPU, and the tests pytest-xdist runs
    beside them keep the other CPUs (spread, the load took about 130 s of CPU from them in a
    run of the suite on 2 cores). Where a process cannot be pinned, the load is spread."""
    if not hasattr(os, "sched_setaffinity"):
        yield os.cpu_count() or 1
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(before)})
    try:
        yield 1
    finally:
        os.sched_setaffinity(0, before)


def load(cpus: int) -> int:
    """Busy processes of the loaded-machine tests: two for each CPU they share (on the 2-core
    machines students use, four starved an endless loop to an 'overloaded' verdict in most
    runs)."""
    return 2 * cpus


@pytest.fixture(scope="module")
def pinned():
    """A sandbox whose template, and so every worker, runs on the CPU of `one_cpu`."""
    with one_cpu():
        sandbox = Sandbox().start()
    with sandbox:
        yield sandbox


def test_an_endless_loop_is_a_timeout_on_a_loaded_machine_every_time(tmp_path, pinned, df_only):
    """Judged by what the worker got: once its CPU time reaches its limit it has had its
    chance, however busy the machine. 10 runs of 10."""
    (tmp_path / "manual_gradient.py").write_text(SPIN)
    pinned._wait_ready()
    rows = []
    with one_cpu() as cpus:
        busy = _burners(load(cpus))
        try:
            for _ in range(10):
                result = grade(
                    submission_dir=tmp_path, exercises=df_only, config=CONFIG, sandbox=pinned
                )
                rows.append(result.exercises[0].checks[0])
        finally:
            _stop(busy)
    assert [r.status for r in rows] == ["timeout"] * 10, [r.message.en for r in rows]
    assert all("limit of 0.5 s per call" in r.message.en for r in rows)


HONEST = (
    (SOLUTIONS / "manual_gradient.py").read_text()
    + """

import time as _time

_right = df


def df(x):  # honest but slow: SECONDS of CPU per call
    start = _time.process_time()
    while _time.process_time() - start < SECONDS:
        pass
    return _right(x)
"""
)


def test_an_honest_slow_call_on_a_loaded_machine_is_not_a_timeout(tmp_path, pinned, df_only):
    """60% of the per-call limit on a free machine, under the load that starves an endless
    loop: it gets the wall time it needs, and its points."""
    (tmp_path / "manual_gradient.py").write_text(HONEST.replace("SECONDS", "0.3"))
    config = Config(examples=2, time_per_call=0.5, time_per_exercise=60.0)
    pinned._wait_ready()
    with one_cpu() as cpus:
        busy = _burners(load(cpus))
        try:
            rows = [
                grade(submission_dir=tmp_path, exercises=df_only, config=config, sandbox=pinned)
                .exercises[0]
                .checks[0]
                for _ in range(3)
            ]
        finally:
            _stop(busy)
    assert [r.status for r in rows] == ["passed"] * 3, [r.message.en for r in rows]


def test_a_starved_honest_submission_is_not_blamed(tmp_path, pinned, df_only):
    """Busy processes outside the worker's group (as busy_children's are to any other
    worker's, where no CPU weight is set, or another program's) keep an honest, slowish answer
    off the CPU: it is given the wall time it needs (or, starved beyond that, reported as the
    machine's overload), never the student's timeout."""
    pinned._wait_ready()
    if pinned.cgroups in (None, "none") or not os.path.exists(starvation.MACHINE_PRESSURE):
        pytest.skip(
            "starvation is measured with a control group per worker and PSI (docs/security.md)"
        )
    (tmp_path / "manual_gradient.py").write_text(HONEST.replace("SECONDS", "0.3"))
    config = Config(examples=2, time_per_call=1.0, time_per_exercise=60.0)
    with one_cpu() as cpus:
        busy = _burners(6 * cpus)
        try:
            (row,) = (
                grade(submission_dir=tmp_path, exercises=df_only, config=config, sandbox=pinned)
                .exercises[0]
                .checks
            )
        finally:
            _stop(busy)
    # Six spinners a CPU at the worker's own weight leave it about a seventh of a CPU: 0.3 s
    # of work takes about 2 s of its limit of 1 s, within STRETCH times it.
    assert row.status == "passed" or "overloaded" in row.message.en, (row.status, row.message)


def test_the_honest_submission_passes_on_a_free_machine(tmp_path, sandbox, df_only):
    """The control for the test above: without the busy processes it earns its points."""
    (tmp_path / "manual_gradient.py").write_text(HONEST.replace("SECONDS", "0.3"))
    config = Config(examples=2, time_per_call=1.0, time_per_exercise=60.0)
    (row,) = (
        grade(submission_dir=tmp_path, exercises=df_only, config=config, sandbox=sandbox)
        .exercises[0]
        .checks
    )
    assert row.status == "passed", row.message

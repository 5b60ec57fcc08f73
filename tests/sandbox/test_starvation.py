"""A timeout is the student's when their code spun or slept, never when it was starved of CPU."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT, SOLUTIONS

from grader.grading.grade import grade
from grader.loader import specfile
from grader.loader.config import Config
from grader.sandbox import starvation
from grader.sandbox.starvation import Load, Meter, judge


@pytest.mark.parametrize(
    "load, verdict",
    [
        (Load(wall=1.0, cpu=0.9, stall=0.1), "spun"),  # an endless loop, CPU to spare
        (Load(wall=1.0, cpu=1.9, stall=0.95), "spun"),  # busy children of its own
        (Load(wall=1.0, cpu=0.6, stall=0.4), "spun"),  # a busy machine, a fair share
        (Load(wall=1.0, cpu=0.01, stall=0.0), "slept"),  # time.sleep, a blocked read
        (Load(wall=1.0, cpu=0.1, stall=0.2), "slept"),  # mostly not runnable
        (Load(wall=1.0, cpu=0.1, stall=0.85), "starved"),  # runnable, kept off the CPU
        (Load(wall=1.0, cpu=0.4, stall=0.4), "starved"),  # got half of what it asked for
        (Load(wall=1.0, cpu=0.8, machine_stall=0.9), "spun"),  # no group stall: CPU time tells
        (Load(wall=1.0, cpu=0.05, machine_stall=0.9), "starved"),
        (Load(wall=1.0, cpu=0.05, machine_stall=0.1), "slept"),
        (Load(wall=1.0, cpu=0.9), "spun"),  # no stall measured at all
        (Load(wall=1.0, cpu=0.1), "unknown"),  # slept or starved: cannot say
        (Load(wall=1.0, stall=0.9, machine_stall=0.9), "unknown"),  # no CPU time: cannot say
        (Load(wall=0.0, cpu=0.0, stall=0.0), "unknown"),
        (None, "unknown"),
    ],
)
def test_judge(load, verdict):
    assert judge(load) == verdict


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
    assert judge(broken.load(broken.read())) == "unknown"  # today's behaviour: a timeout
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
    judged = []

    def fake(load):
        judged.append(load)
        return measured

    monkeypatch.setattr(starvation, "judge", fake)
    (tmp_path / "manual_gradient.py").write_text(SPIN)
    (row,) = (
        grade(submission_dir=tmp_path, exercises=df_only, config=CONFIG, sandbox=sandbox)
        .exercises[0]
        .checks
    )
    assert row.status == status, row.message
    if measured == "starved":  # once more in a fresh worker, then the machine is named
        assert len(judged) == 2
        assert "overloaded" in row.message.en and "not your fault" in row.message.en
        assert "terlalu sibuk" in row.message.id and row.counterexample
    else:
        assert len(judged) == 1 and "limit of 0.5 s per call" in row.message.en


HONEST = (
    (SOLUTIONS / "manual_gradient.py").read_text()
    + """

import time as _time

_right = df


def df(x):  # honest but slow: 0.3 s of CPU per call, within the limit of 1 s on a free machine
    start = _time.process_time()
    while _time.process_time() - start < 0.3:
        pass
    return _right(x)
"""
)


def test_a_starved_honest_submission_is_not_blamed(tmp_path, sandbox, df_only):
    """Busy processes outside the worker's group (as busy_children's are to any other
    worker's, where no CPU weight is set, or another program's) keep an honest, slowish answer
    off the CPU: it is reported as the machine's overload, never as the student's timeout."""
    sandbox._wait_ready()
    if sandbox.cgroups in (None, "none") or not os.path.exists(starvation.MACHINE_PRESSURE):
        pytest.skip(
            "starvation is measured with a control group per worker and PSI (docs/security.md)"
        )
    (tmp_path / "manual_gradient.py").write_text(HONEST)
    config = Config(examples=2, time_per_call=1.0, time_per_exercise=60.0)
    # Each in a session of its own, as busy_children's are: with the kernel's autogroups, a
    # session is one entity of the scheduler, as a worker's control group is.
    busy = [
        subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", "while True: pass", "86422"], start_new_session=True
        )
        for _ in range(12)
    ]
    try:
        (row,) = (
            grade(submission_dir=tmp_path, exercises=df_only, config=config, sandbox=sandbox)
            .exercises[0]
            .checks
        )
    finally:
        for proc in busy:
            proc.kill()
        for proc in busy:
            proc.wait()
    # Twelve spinners at the worker's own weight leave it about a seventh of a CPU: 0.3 s of
    # work takes about 2 s, and it waits six times as long as it runs, in both workers.
    assert row.status == "error", (row.status, row.message)
    assert "overloaded" in row.message.en, row.message.en


def test_the_honest_submission_passes_on_a_free_machine(tmp_path, sandbox, df_only):
    """The control for the test above: without the busy processes it earns its points."""
    (tmp_path / "manual_gradient.py").write_text(HONEST)
    config = Config(examples=2, time_per_call=1.0, time_per_exercise=60.0)
    (row,) = (
        grade(submission_dir=tmp_path, exercises=df_only, config=config, sandbox=sandbox)
        .exercises[0]
        .checks
    )
    assert row.status == "passed", row.message

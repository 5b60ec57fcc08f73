"""Was a timed-out call the student's code, or a machine too busy to run it?

A call that runs past its limit either spun (it used its CPU: an endless loop, or too slow),
slept (it used little CPU while CPUs were free: a sleep, a blocked read), or was starved (it
wanted a CPU and waited for one, because something else had them). Only the first two are the
student's doing. The grader measures, over the call, the CPU time of the worker's control group
(its children included) and how long that group's processes waited for a CPU (its
`cpu.pressure`), or where the group has no pressure file, how long any process of the machine
waited (`/proc/pressure/cpu`). Where neither CPU time nor a stall can be measured, nothing is
claimed (`unknown`), and a timeout is the student's as it always was.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

MACHINE_PRESSURE = "/proc/pressure/cpu"
BUSY = 0.5
"""A call whose group ran (or wanted to run) for at least this share of its time was busy."""


@dataclass(frozen=True)
class Reading:
    """The meters at one moment; None where a meter is missing."""

    at: float
    cpu: float | None
    stall: float | None
    machine_stall: float | None


@dataclass(frozen=True)
class Load:
    """What happened during one call, in seconds."""

    wall: float
    cpu: float | None = None
    """CPU time of the worker's group (all its processes)."""
    stall: float | None = None
    """Time at least one of the group's processes was runnable but waiting for a CPU."""
    machine_stall: float | None = None
    """The same for any process of the machine."""


def judge(load: Load | None) -> str:
    """'spun', 'slept', 'starved' or 'unknown' (see the module's text).

    With the group's own stall: it was busy if it ran or waited for a CPU most of the call
    (else it slept), and starved if it waited at least as long as it ran (it got at most half
    the CPU it asked for). With only the machine's stall: busy code used most of the call as
    CPU time (spun); code that used little while the machine's processes waited most of the
    call was starved; little while they did not, slept."""
    if load is None or load.wall <= 0 or load.cpu is None:
        return "unknown"
    wall, cpu = load.wall, max(load.cpu, 0.0)
    if load.stall is not None:
        stall = max(load.stall, 0.0)
        if cpu + stall < BUSY * wall:
            return "slept"
        return "starved" if stall >= cpu else "spun"
    if cpu >= BUSY * wall:
        return "spun"
    if load.machine_stall is None:
        return "unknown"
    return "starved" if load.machine_stall >= BUSY * wall else "slept"


class Meter:
    """Reads one worker's meters (file paths from cgroups.Group.meters) and the machine's."""

    def __init__(self, paths: dict):
        self.usage = paths.get("usage") if isinstance(paths.get("usage"), str) else None
        self.pressure = paths.get("pressure") if isinstance(paths.get("pressure"), str) else None

    def read(self) -> Reading:
        return Reading(
            at=time.monotonic(),
            cpu=_usage(self.usage),
            stall=_some_total(self.pressure) if self.pressure else None,
            machine_stall=_some_total(MACHINE_PRESSURE),
        )

    def load(self, since: Reading) -> Load:
        now = self.read()

        def delta(a, b):
            return None if a is None or b is None else b - a

        return Load(
            wall=now.at - since.at,
            cpu=delta(since.cpu, now.cpu),
            stall=delta(since.stall, now.stall),
            machine_stall=delta(since.machine_stall, now.machine_stall),
        )


def _read(path: str | None) -> str | None:
    if not path:
        return None
    try:
        with open(path) as f:
            return f.read(4096)
    except OSError:
        return None


def _usage(path: str | None) -> float | None:
    """Seconds of CPU time: v1 `cpuacct.usage` (nanoseconds) or v2 `cpu.stat` (usage_usec)."""
    text = _read(path)
    if text is None:
        return None
    try:
        if path.endswith("cpuacct.usage"):
            return int(text.strip()) / 1e9
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
    except ValueError:
        return None
    return None


def _some_total(path: str) -> float | None:
    """Seconds of the `some` line's total (microseconds) of a pressure file."""
    text = _read(path)
    if text is None:
        return None
    for line in text.splitlines():
        if line.startswith("some "):
            for field in line.split()[1:]:
                key, _, value = field.partition("=")
                if key == "total":
                    try:
                        return int(value) / 1e6
                    except ValueError:
                        return None
    return None

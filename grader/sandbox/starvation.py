"""Was a timed-out call the student's code, or a machine too busy to run it?

A call has had its fair chance once it got, as CPU time, about its time limit: what it would
have got on a free machine. The grader measures, over each call, the CPU time of the worker's
control group (its children included) or, where there is no group, of the worker process
itself (`/proc/<pid>/stat` on Linux, GetProcessTimes on Windows); and how long the group's
processes waited for a CPU (its `cpu.pressure`), or without a group, how long the process's
threads waited on a run queue (`/proc/<pid>/task/*/schedstat`), or where neither is there, how
long any process of the machine waited (`/proc/pressure/cpu`: a call that sleeps while the
machine is busy cannot be told from a starved one then).

A call that reaches its wall-clock limit either spun (it used about its limit as CPU time: an
endless loop, or too slow, however busy the machine), slept (it used little CPU while CPUs
were free: a sleep, a blocked read), or was starved (it wanted a CPU and waited for one,
because something else had them). Only the first two are the student's doing. A starved call,
or one whose CPU time is measured but whose waiting is not, is given more wall time
(`more_time`), up to STRETCH times its limit, until its CPU time reaches the limit; one still
starved then is graded again in a fresh worker, and if starved again, named the machine's
overload. Where CPU time cannot be measured (a platform with neither), nothing is claimed
(`unknown`), and a timeout is the student's as it always was.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

MACHINE_PRESSURE = "/proc/pressure/cpu"
BUSY = 0.5
"""A call whose group ran (or wanted to run) for at least this share of its time was busy."""
FAIR = 0.95
"""A call that got this share of its limit as CPU time has had its fair chance (the rest is
the meters' own slack: a reading may lag the call's start by a few milliseconds)."""
STRETCH = 6.0
"""A starved call may run up to this many times its limit, wall-clock, to get its CPU time."""
STEP = 0.1
"""The least extra wall time given at once, as a share of the limit."""


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


def judge(load: Load | None, limit: float) -> str:
    """'spun', 'slept', 'starved' or 'unknown' (see the module's text), for a call whose
    limit was `limit` seconds.

    It spun when it used at least FAIR of its limit as CPU time, whatever else happened. Else,
    with the group's own stall: it was starved if it ran or waited for a CPU most of the call
    (it was runnable, and did not get its time), and slept if not. With only the machine's
    stall: starved if the machine's processes waited most of the call, slept if not. With no
    stall at all, or no CPU time: unknown."""
    if load is None or load.wall <= 0 or load.cpu is None:
        return "unknown"
    wall, cpu = load.wall, max(load.cpu, 0.0)
    if cpu >= FAIR * limit:
        return "spun"
    if load.stall is not None:
        return "starved" if cpu + max(load.stall, 0.0) >= BUSY * wall else "slept"
    if load.machine_stall is None:
        return "unknown"
    return "starved" if load.machine_stall >= BUSY * wall else "slept"


def more_time(load: Load | None, limit: float) -> float:
    """Seconds more to wait for a call that reached its wall-clock limit (`load` measured
    since it began; 0: its time is up). Code that spun or slept gets none; code that was
    starved, or whose CPU time is measured but not why it lacks it, gets what it still lacks
    of its limit as CPU time (at least STEP of the limit), until it has run STRETCH times its
    limit."""
    if load is None or load.cpu is None or judge(load, limit) in ("spun", "slept"):
        return 0.0
    left = STRETCH * limit - load.wall
    if left <= 0:
        return 0.0
    return min(left, max(limit - max(load.cpu, 0.0), STEP * limit))


class Meter:
    """Reads one worker's meters (file paths from cgroups.Group.meters) and the machine's;
    where the group has no CPU time (no group), that of the process `pid`."""

    def __init__(self, paths: dict, pid: int | None = None):
        self.usage = paths.get("usage") if isinstance(paths.get("usage"), str) else None
        self.pressure = paths.get("pressure") if isinstance(paths.get("pressure"), str) else None
        self.pid = pid if self.usage is None and type(pid) is int and pid > 0 else None

    def read(self) -> Reading:
        return Reading(
            at=time.monotonic(),
            cpu=_usage(self.usage) if self.usage else process_cpu(self.pid),
            stall=_some_total(self.pressure) if self.pressure else process_stall(self.pid),
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


def process_cpu(pid: int | None) -> float | None:
    """Seconds of CPU time of one process (its threads, and the children it waited for), or
    None where the platform does not say: `/proc/<pid>/stat` on Linux, GetProcessTimes on
    Windows."""
    if pid is None:
        return None
    if sys.platform == "win32":
        return _windows_cpu(pid)
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    try:  # after the command's name, which may hold spaces and parentheses
        fields = text[text.rindex(")") + 2 :].split()
        ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
        return ticks / os.sysconf("SC_CLK_TCK")
    except (ValueError, IndexError, OSError):
        return None


def process_stall(pid: int | None) -> float | None:
    """Seconds the threads of one process spent runnable but waiting for a CPU (the second
    field of Linux's `/proc/<pid>/task/<tid>/schedstat`, nanoseconds), or None where the
    platform does not say."""
    if pid is None or sys.platform == "win32":
        return None
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    ran = waited = 0
    for tid in tids[:64]:
        text = _read(f"/proc/{pid}/task/{tid}/schedstat")
        if text is None:
            continue  # a thread that ended meanwhile
        try:
            fields = text.split()
            ran, waited = ran + int(fields[0]), waited + int(fields[1])
        except (ValueError, IndexError):
            return None
    return waited / 1e9 if ran > 0 else None  # nothing ran: the kernel keeps no such figures


def _windows_cpu(pid: int) -> float | None:  # pragma: no cover - Windows only
    try:
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return None
        try:
            times = [wintypes.FILETIME() for _ in range(4)]
            if not kernel32.GetProcessTimes(handle, *(ctypes.byref(t) for t in times)):
                return None
            kernel, user = ((t.dwHighDateTime << 32) | t.dwLowDateTime for t in times[2:])
            return (kernel + user) / 1e7  # in units of 100 ns
        finally:
            kernel32.CloseHandle(handle)
    except (OSError, AttributeError, ImportError, ValueError):
        return None

"""A control group per worker, where the machine offers one: memory, process count and CPU
weight count for the worker and everything it starts, and killing the group ends them all.

cgroup v2 (a unified hierarchy whose controllers are enabled for the grader's own group) and
cgroup v1 (one hierarchy per controller, as in many containers) are both used; where neither
is writable (not root, a read-only /sys/fs/cgroup, a v2 group whose controllers cannot be
enabled), workers keep their per-process limits only, and `describe()` says so.

The group also measures: its CPU time (v2 `cpu.stat`, v1 `cpuacct.usage`) and how long its
processes waited for a CPU (`cpu.pressure`, on v2, or on the unified hierarchy a hybrid v1
machine mounts beside the controllers, where every group has it), so that a timeout can be
told apart from starvation (grader/sandbox/starvation.py). `meters()` names those files.
"""

from __future__ import annotations

import os
import signal
import time

ROOT = "/sys/fs/cgroup"
CPU_WEIGHT = 100
"""Every worker the same share: one worker's sixty children share one worker's CPU."""
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
"""v1 hierarchies a worker gets a group in (cpu: the weight; cpuacct: its CPU time)."""


def _own_groups() -> dict[str, str]:
    """controller (or '' for v2) -> the grader's group path, from /proc/self/cgroup."""
    out = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                for c in controllers.split(",") if controllers else [""]:
                    out[c] = path
    except OSError:
        pass
    return out


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class Layout:
    """Where a worker's groups go on this machine: a list of (kind, parent directory)."""

    def __init__(self):
        self.parents: list[tuple[str, str]] = []
        own = _own_groups()
        if os.path.exists(os.path.join(ROOT, "cgroup.controllers")) and "" in own:
            parent = os.path.join(ROOT, own[""].lstrip("/"))
            try:
                with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                    enabled = set(f.read().split())
            except OSError:
                enabled = set()
            if {"memory", "pids"} <= enabled:
                self.parents.append(("v2", parent))
        else:
            seen = set()
            for controller in _v1_controllers():
                base = os.path.join(ROOT, controller)
                if controller in own and os.path.isdir(base):
                    parent = os.path.join(base, own[controller].lstrip("/"))
                    if os.path.realpath(parent) not in seen:  # cpu,cpuacct mounted together
                        seen.add(os.path.realpath(parent))
                        self.parents.append((controller, parent))
            # A hybrid machine's unified hierarchy holds no controller, but measures every
            # group's CPU time and stall: the worker joins a group there too.
            unified = os.path.join(ROOT, "unified")
            if "" in own and os.path.exists(os.path.join(unified, "cgroup.controllers")):
                parent = os.path.join(unified, own[""].lstrip("/"))
                if os.path.exists(os.path.join(parent, "cpu.pressure")):
                    self.parents.append(("psi", parent))
        self.parents = [(k, p) for k, p in self.parents if self._writable(p)]

    @staticmethod
    def _writable(parent: str) -> bool:
        probe = os.path.join(parent, f"grader-probe-{os.getpid()}")
        try:
            os.mkdir(probe)
            os.rmdir(probe)
            return True
        except OSError:
            return False

    def describe(self) -> str:
        if not self.parents:
            return "none"
        kinds = [k for k, _ in self.parents]
        return "v2" if kinds == ["v2"] else "v1 (" + ", ".join(kinds) + ")"


class Group:
    """One worker's groups; join() from the worker itself, before it starts anything."""

    def __init__(self, layout: Layout, name: str, memory_bytes: int, pids: int):
        self.dirs: list[tuple[str, str]] = []
        for kind, parent in layout.parents:
            path = os.path.join(parent, name)
            try:
                os.mkdir(path)
                self.dirs.append((kind, path))
                if kind == "v2":
                    _try(path, "memory.max", str(memory_bytes))
                    _try(path, "memory.swap.max", "0")
                    _try(path, "pids.max", str(pids))
                    _try(path, "cpu.weight", str(CPU_WEIGHT))
                elif kind == "memory":
                    _try(path, "memory.limit_in_bytes", str(memory_bytes))
                    _try(path, "memory.memsw.limit_in_bytes", str(memory_bytes))
                elif kind == "pids":
                    _try(path, "pids.max", str(pids))
                elif kind == "cpu":
                    _try(path, "cpu.shares", "1024")
            except OSError:
                continue

    def meters(self) -> dict[str, str]:
        """The files that measure the group: "usage" (CPU time: v2 `cpu.stat` or v1
        `cpuacct.usage`) and "pressure" (`cpu.pressure`), where the group has them."""
        out = {}
        for kind, path in self.dirs:
            if kind in ("v2", "psi"):
                out.setdefault("usage", os.path.join(path, "cpu.stat"))
                if os.path.exists(os.path.join(path, "cpu.pressure")):
                    out["pressure"] = os.path.join(path, "cpu.pressure")
            elif kind in ("cpuacct", "cpu") and os.path.exists(
                os.path.join(path, "cpuacct.usage")
            ):
                out["usage"] = os.path.join(path, "cpuacct.usage")
        return out

    @classmethod
    def existing(cls, dirs) -> Group:
        """Groups a template made (its spawn reply's [kind, path] pairs), for the grader to
        end and remove when that template is gone (a worker killed it)."""
        group = cls.__new__(cls)
        group.dirs = [
            (str(k), str(p))
            for k, p in dirs
            if str(p).startswith(ROOT + "/") and os.path.basename(str(p)).startswith("grader-")
        ]
        return group

    def join(self, pid: int = 0) -> None:
        for _, path in self.dirs:
            _try(path, "cgroup.procs", str(pid or os.getpid()))

    def pids(self) -> set[int]:
        out: set[int] = set()
        for _, path in self.dirs:
            try:
                with open(os.path.join(path, "cgroup.procs")) as f:
                    out |= {int(x) for x in f.read().split()}
            except (OSError, ValueError):
                pass
        return out

    def memory_exhausted(self) -> bool:
        """Whether the group hit its memory limit (the kernel's OOM killer may have acted)."""
        for kind, path in self.dirs:
            name = (
                "memory.events" if kind == "v2" else "memory.failcnt" if kind == "memory" else None
            )
            if name is None:
                continue
            try:
                with open(os.path.join(path, name)) as f:
                    text = f.read()
            except OSError:
                continue
            if kind == "memory" and text.strip() not in ("", "0"):
                return True
            if kind == "v2":
                for line in text.splitlines():
                    key, _, value = line.partition(" ")
                    if key in ("oom", "oom_kill", "max") and value.strip() not in ("", "0"):
                        return True
        return False

    def destroy(self, timeout: float = 5.0) -> None:
        """Kill every process in the groups, then remove them."""
        deadline = time.monotonic() + timeout
        for kind, path in self.dirs:
            if kind == "v2":
                _try(path, "cgroup.kill", "1")
        while True:
            left = self.pids()
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.001)
        for _, path in self.dirs:
            for _ in range(100):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.001)


def _v1_controllers() -> tuple[str, ...]:
    """GRADER_CPU_GROUPS=0 leaves the v1 cpu hierarchy out (no weight per worker)."""
    if os.environ.get("GRADER_CPU_GROUPS", "1") == "0":
        return tuple(c for c in V1_CONTROLLERS if c != "cpu")
    return V1_CONTROLLERS


def _try(path: str, name: str, value: str) -> None:
    try:
        _write(os.path.join(path, name), value)
    except OSError:
        pass

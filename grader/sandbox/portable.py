"""Portable workers, for Windows and other places without `os.fork` or `resource`.

Each worker is a spawned Python process that talks to the grader over its stdin and stdout pipes
with the same wire frames (never pickle). Processes are started ahead, importing torch while
the previous exercise is graded: one, or up to AHEAD where the grader says how many exercises
it is about to grade (expect), so that a course's workers import on every core and a spawn
rarely waits. Time limits are enforced by the grader: a call that runs past its limit gets its
worker killed (with the processes it started, where the platform allows). The student's prints
go to a file in the scratch copy.

One worker may serve the exercises of one submission, one after another (design.md, section
2): at the end of an exercise it forgets that exercise's modules and says whether anything is
left it cannot undo (grader.sandbox.worker.leftovers); if not, the submission's next exercise is imported
in it (its own module, its own scratch copy). A worker that timed out, crashed, ran a hidden
check, left a thread or a child, or changed torch's functions is replaced, as is every idle
worker of another submission. Fork mode keeps one fresh worker per (submission, exercise).

What this mode does not do (docs/security.md): no memory, CPU or output-size limits, no
namespaces (the answer key is only off the import path), and on Windows a process the student
starts outside the worker's process tree may survive. It is chosen automatically where fork or
`resource` is missing; GRADER_SANDBOX=portable selects it anywhere (tests run it on Linux).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from grader.common import turns
from grader.sandbox import isolation, tmpdirs
from grader.sandbox.workers import Refused, SandboxError, Worker

ROOT = str(Path(__file__).resolve().parents[2])
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from grader.sandbox.portable import child_main; child_main()"
)
ENV = "GRADER_SANDBOX"
READY_SECONDS = 300
"""How long a fresh worker may take to import torch (a cold start on a slow laptop)."""
END_SECONDS = 10.0
"""How long a worker may take to say whether it can serve the next exercise (it checks
torch's modules and classes, its threads and children): longer, and it is replaced."""


def wanted() -> bool:
    """Portable mode: asked for (GRADER_SANDBOX=portable), or fork or resource is missing."""
    mode = os.environ.get(ENV, "").strip().lower()
    if mode == "portable":
        return True
    if mode == "fork":
        return False
    return not hasattr(os, "fork") or importlib.util.find_spec("resource") is None


class PipeChannel:
    """The grader's end of a worker's pipes, with the socket methods wire and Worker use."""

    AHEAD = 1 << 20
    """Bytes read ahead of the grader at most: the reader thread stops reading the pipe when
    this much waits (the worker then blocks on its write), so what a worker writes costs the
    grader at most this much beyond what wire.recv is decoding (its own caps)."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.buffer = bytearray()
        self.eof = False
        self.closed = False
        self.timeout: float | None = None
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            try:
                chunk = out.read(1 << 16)  # raw (bufsize=0): returns what is there
            except (OSError, ValueError):
                chunk = b""
            with self.cond:
                if not chunk:
                    self.eof = True
                    self.cond.notify_all()
                    break
                self.cond.wait_for(lambda: len(self.buffer) < self.AHEAD or self.closed)
                if not self.closed:  # after close, what comes is drained to the end, unread
                    self.buffer += chunk
                self.cond.notify_all()
        try:  # only this thread closes stdout: closing it under a blocked read would hang
            out.close()
        except OSError:
            pass

    def settimeout(self, timeout: float | None) -> None:
        self.timeout = timeout

    def wait_readable(self, timeout: float) -> bool:
        """True once bytes (or the end) are there to read, False after `timeout` seconds."""
        with self.cond:
            return bool(self.cond.wait_for(lambda: self.buffer or self.eof, max(timeout, 0.0)))

    def recv_into(self, view, n: int) -> int:
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        with self.cond:
            while not self.buffer and not self.eof:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError("the worker did not answer in time")
                self.cond.wait(left)
            if not self.buffer:
                return 0
            k = min(n, len(self.buffer), len(view))
            view[:k] = self.buffer[:k]
            del self.buffer[:k]
            self.cond.notify_all()  # the reader may read ahead again
            return k

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:  # a raw pipe may take part of it
                view = view[self.proc.stdin.write(view) or 0 :]
        except (OSError, ValueError) as exc:
            raise ConnectionError(str(exc)) from None

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.buffer.clear()
            self.cond.notify_all()
        try:
            self.proc.stdin.close()
        except OSError:
            pass


class _ChildChannel:
    """The worker's end: its original stdin and stdout, kept on new descriptors."""

    def __init__(self, rfd: int, wfd: int):
        self.rfd, self.wfd = rfd, wfd

    def recv_into(self, view, n: int) -> int:
        data = os.read(self.rfd, n)
        view[: len(data)] = data
        return len(data)

    def sendall(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            k = os.write(self.wfd, view)
            view = view[k:]


def child_main() -> None:
    """The worker process: keep the pipes for the protocol, import torch, say ready, take a
    spawn request, send the student's output to the scratch copy, and serve; then, where the
    grader ends the exercise with nothing left behind (grader.sandbox.worker.leftovers), take the
    submission's next spawn request."""
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    import torch  # noqa: F401

    from grader.common import wire
    from grader.sandbox import probes, trap, worker  # noqa: F401

    worker.preload()  # as the template does: no student's call pays for a lazy import

    trap.alias_index()  # torch's second names for forbidden APIs, as the template does
    pristine = worker.Pristine()  # before any student's code: what reuse compares with
    channel = _ChildChannel(rfd, wfd)
    wire.send(channel, {"ready": True})
    handles: dict[str, int] | None = None
    while True:
        try:
            header, _ = wire.recv(channel)
        except (EOFError, OSError, wire.WireError):
            os._exit(0)
        request = header["request"]
        probes.load_plugin(request.get("plugin"))  # before the student's file exists here
        fd = os.open(
            os.path.join(request["scratch"], ".output"),
            os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
            0o600,
        )
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        if handles is None:
            handles = {}
            if isolation.is_root():  # never a root worker: a user of its own (owns the scratch)
                handles = isolation.library_handles(isolation.library_paths())
                isolation.drop_privileges(isolation.worker_uid(os.getpid()))  # raises: no serve
                isolation.end_leftovers()
        if not worker.serve(channel, request, handles, pristine):
            os._exit(0)


WINDOWS_KEEP = (
    "SYSTEMROOT",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "TEMP",
    "TMP",
    "USERPROFILE",
    "LOCALAPPDATA",
    "APPDATA",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
)
"""What Windows needs for Python and torch to start (matched without regard to case)."""


def worker_environment(tmp: str | None = None) -> dict:
    """The grader's environment as the fork mode scrubs it (no tokens, no CI variables), plus
    what Windows needs to start a process; tmp: the folder its temporary files and torch's
    caches go to (tmpdirs.env) until it has a scratch copy of its own (worker.private_tmp)."""
    from grader.sandbox.isolation import scrubbed_environment

    env = scrubbed_environment(os.environ)
    if os.name == "nt":
        env.update({k: v for k, v in os.environ.items() if k.upper() in WINDOWS_KEEP})
    if tmp is not None:
        env.update(tmpdirs.env(tmp))
    return env


AHEAD = max(1, min(3, os.cpu_count() or 1))
"""Workers importing at once, at most, for the exercises the grader expects: a worker's start
(Python, torch, worker.PRELOAD) is about 2.4 s of CPU, most of a course's time in this mode, and
one at a time left a core idle (the course's `check --fresh` took 33.4 s with one, 21.4 s with
two, and 21.4 s with three, on 2 cores)."""


class PortableSandbox:
    """Starts worker processes ahead; spawn() hands one a student's file."""

    isolation = "portable"

    def __init__(self):
        self.warm: list[tuple[subprocess.Popen, PipeChannel]] = []
        self.procs: dict[int, subprocess.Popen] = {}
        self.expected: int | None = None
        """Workers the grader said it will ask for (expect), less those it has had."""
        self.at_once: int | None = None
        """Exercises the grader grades at once (expect): with workers reused, that many
        workers serve a submission, and no more are started ahead."""
        self.owners: dict[int, str] = {}
        """pid -> the submission a worker serves (spawn's owner), for the busy ones."""
        self.idle: dict[str, list[tuple[subprocess.Popen, PipeChannel]]] = {}
        """Workers that ended an exercise with nothing left behind, by submission."""
        self.lock = threading.Lock()
        """One spawn or reap at a time (several exercises may be graded at once)."""
        self.tmp: str | None = None
        """The workers' temporary folder before they have a scratch copy: a worker imports
        torch there (preloading torch._dynamo makes torchinductor_<user>, as root where the
        grader is), and it goes on close, as the fork mode's template folder does."""

    def expect(self, workers: int, at_once: int | None = None, owner: str | None = None) -> None:
        """The grader is about to grade this many exercises of the submission `owner`, a
        worker each, `at_once` of them at a time (None: unknown): start enough of them ahead
        (up to AHEAD; with workers reused, up to at_once less those the submission has), and
        no more than the one kept for a crash once they have had theirs."""
        self.expected, self.at_once = workers, at_once
        with self.lock:
            for other in [o for o in self.idle if o != owner]:  # not reused: end them now
                for proc, _ in self.idle.pop(other):
                    self._kill(proc)
        self._top_up(owner)

    def _top_up(self, owner: str | None = None) -> None:
        if self.expected is None:
            wanted = 1  # one at least: a crash or a timeout costs a fresh worker
        elif self.at_once is None:
            wanted = max(1, min(AHEAD, self.expected))
        else:  # reused workers: as many as grade at once, less those the submission has
            serving = len(self.idle.get(owner, ())) + sum(
                1 for o in self.owners.values() if o == owner
            )
            wanted = max(0, min(AHEAD, self.expected, self.at_once) - serving)
        while len(self.warm) < wanted:
            self.warm.append(self._launch())

    def _launch(self) -> tuple[subprocess.Popen, PipeChannel]:
        flags = {}
        if os.name == "nt":
            flags["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        else:
            flags["start_new_session"] = True
        proc = subprocess.Popen(
            [sys.executable, "-I", "-c", BOOT, ROOT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            stderr=subprocess.DEVNULL,
            cwd=tempfile.gettempdir(),
            env=worker_environment(self._tmp()),
            **flags,
        )
        return proc, PipeChannel(proc)

    def _tmp(self) -> str:
        if self.tmp is None:
            self.tmp = tempfile.mkdtemp(prefix="grader-portable-")
        return self.tmp

    def start(self) -> PortableSandbox:
        """Start the first worker; a root grader whose workers could not run as users of their
        own refuses (Refused) instead."""
        if isolation.is_root() and os.name == "posix":
            found = isolation.refusal(isolation.library_paths()) or isolation.scratch_refusal(
                "portable"
            )
            if found:
                raise Refused(found)
        self.warm = [self._launch()]
        return self

    def spawn(
        self,
        *,
        scratch: str,
        file: str,
        module: str,
        trap: list[str],
        limits,
        hide=(),
        plugin=None,
        owner: str | None = None,
    ):
        """A worker for one exercise; `owner` names its submission: a worker that served the
        same submission's last exercise with nothing left behind serves this one (None: a
        fresh worker)."""
        with turns.waiting(), self.lock:  # several exercises may be graded at once
            return self._spawn(scratch, file, module, trap, limits, plugin, owner)

    def _spawn(self, scratch, file, module, trap, limits, plugin, owner=None):
        from grader.common import wire  # here: importing this module must not import torch

        for other in [o for o in self.idle if o != owner]:  # another submission's: not reused
            for proc, _ in self.idle.pop(other):
                self._kill(proc)
        for attempt in (0, 1):
            reused = self._idle(owner)
            proc, channel = reused or (self.warm.pop(0) if self.warm else self._launch())
            try:
                if isolation.is_root():  # its user (see child_main) must own its scratch copy
                    isolation.own(scratch, isolation.worker_uid(proc.pid))
                if not reused:
                    channel.settimeout(READY_SECONDS)
                    header, _ = wire.recv(channel)
                    if header.get("ready") is not True:
                        raise wire.WireError("no ready message")
                wire.send(
                    channel,
                    {
                        "request": {
                            "scratch": scratch,
                            "file": file,
                            "module": module,
                            "trap": trap,
                            "plugin": plugin,
                            "limits": limits.as_dict(),
                        }
                    },
                )
            except (TimeoutError, OSError, EOFError, wire.WireError):
                self._kill(proc)
                if attempt:
                    raise SandboxError("a portable worker failed to start") from None
                continue
            self.procs[proc.pid] = proc
            if owner is not None:
                self.owners[proc.pid] = owner
            if self.expected is not None:
                self.expected = max(0, self.expected - 1)
            self._top_up(owner)  # the next exercises' workers import torch meanwhile
            return Worker(self, proc.pid, channel, limits)

    def _idle(self, owner: str | None):
        """A live idle worker of this submission, or None."""
        pool = self.idle.get(owner, []) if owner is not None else []
        while pool:
            proc, channel = pool.pop()
            if proc.poll() is None and not channel.eof:
                return proc, channel
            self._kill(proc)
        return None

    def recycle(self, worker: Worker) -> bool:
        """End the worker's exercise and keep it for its submission's next one, where it says
        that it left nothing behind (grader.sandbox.worker.leftovers). False: it is not kept (the caller
        closes and reaps it)."""
        from grader.common import wire

        owner = self.owners.get(worker.pid)
        proc = self.procs.get(worker.pid)
        if owner is None or proc is None or proc.poll() is not None:
            return False
        channel = worker.sock
        with turns.waiting():
            try:
                channel.settimeout(END_SECONDS)
                wire.send(channel, {"op": "end"})
                header, _ = wire.recv(channel, time.monotonic() + END_SECONDS)
            except (TimeoutError, OSError, EOFError, ValueError, wire.WireError):
                return False
            if header.get("ended") is not True or header.get("clean") is not True:
                return False
            with self.lock:
                self.procs.pop(worker.pid, None)
                self.owners.pop(worker.pid, None)
                self.idle.setdefault(owner, []).append((proc, channel))
        return True

    def reap(self, pid: int, grace: float, groups=()) -> dict:
        with turns.waiting(), self.lock:
            return self._reap(pid, grace)

    def _reap(self, pid: int, grace: float) -> dict:
        owner = self.owners.pop(pid, None)
        proc = self.procs.pop(pid, None)
        if proc is None:
            return {"killed": False, "exit": None, "signal": None}
        killed = False
        try:
            proc.wait(timeout=max(grace, 0.0) or 0.001)
        except subprocess.TimeoutExpired:
            killed = True
        self._kill(proc)  # whatever it started goes too
        code = proc.returncode
        if owner is not None and self.expected:
            self._top_up(owner)  # its submission's next exercise needs a fresh one
        return {
            "killed": killed,
            "exit": code if code is not None and code >= 0 else None,
            "signal": -code if code is not None and code < 0 and not killed else None,
        }

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        if os.name == "nt":
            subprocess.run(
                ["taskkill", "/F", "/T", "/PID", str(proc.pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
        else:
            try:
                os.killpg(proc.pid, 9)
            except (ProcessLookupError, PermissionError):
                pass
            if isolation.is_root():  # and whatever of its user left its session (see child_main)
                isolation.end_processes_of(isolation.worker_uid(proc.pid), spawn=True)
        if proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        try:
            proc.stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        for proc, _ in self.warm:
            self._kill(proc)
        self.warm.clear()
        for pool in self.idle.values():
            for proc, _ in pool:
                self._kill(proc)
        self.idle.clear()
        self.owners.clear()
        for proc in list(self.procs.values()):
            self._kill(proc)
        self.procs.clear()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

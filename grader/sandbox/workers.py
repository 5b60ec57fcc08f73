"""A live worker seen from the grader: its socket, its limits and how it ends; and the errors a
sandbox raises (WorkerLost: the worker's end, the student's; SandboxError: the grader's)."""

from __future__ import annotations

import select
import socket
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grader.common import turns
from grader.common.errors import GraderError
from grader.sandbox import starvation

if TYPE_CHECKING:
    from grader.common import wire


EXIT_MEMORY = 71
"""A forked worker's exit status when a MemoryError ended it (sandbox.template): the student's
code had used up the memory the worker needed to go on, told as out of memory, not as an exit."""


class WorkerLost(BaseException):
    """The worker timed out, crashed, exited or broke the protocol."""

    def __init__(
        self,
        kind: str,
        detail: str = "",
        exit_code=None,
        signal=None,
        load: starvation.Load | None = None,
        starved: bool = False,
    ):
        super().__init__(kind, detail)
        self.kind, self.detail, self.exit_code, self.signal = kind, detail, exit_code, signal
        self.load = load
        """For a timeout: what the worker's group and the machine did meanwhile (or None)."""
        self.starved = starved
        """For a timeout: the call was starved of CPU (starvation.judge) to the end of the
        wall time it was given: the machine's doing, not the student's."""


class SandboxError(Exception):
    """The sandbox itself failed (the grader's fault, never the student's)."""


class Refused(GraderError):
    """Workers here could not run the student's code unprivileged (a root grader whose workers
    cannot drop to a user of their own): nothing is graded (exit code 2), the message says how
    to run the grader instead."""


@dataclass
class Limits:
    call_seconds: float
    memory_bytes: int
    output_bytes: int
    cpu_seconds: int

    def as_dict(self) -> dict:
        return {
            "memory_bytes": self.memory_bytes,
            "output_bytes": self.output_bytes,
            "cpu_seconds": self.cpu_seconds,
        }


class Worker:
    """A live worker process with the student's file imported (or failing to). Its sandbox (a
    client.Sandbox or a portable one) reaps it when it closes."""

    def __init__(
        self,
        sandbox,
        pid: int,
        sock: socket.socket,
        limits: Limits,
        meter: starvation.Meter | None = None,
        groups=(),
    ):
        self.sandbox, self.pid, self.sock, self.limits = sandbox, pid, sock, limits
        self.groups = list(groups)
        """The worker's control groups, as [kind, path] (see Sandbox.reap)."""
        self.status: dict | None = None
        self.meter = meter or starvation.Meter({}, pid=pid)
        self.since: starvation.Reading | None = None
        """The meters when the current request was sent (or the worker could start it)."""
        self.stretched = 0.0
        """Wall seconds given to starved calls beyond their limits (see receive)."""

    def _lost(self, kind: str, detail: str = "", limit: float | None = None) -> WorkerLost:
        # Read before the group goes: the kill, and the reap that removes the group, end it.
        load = self.meter.load(self.since) if kind == "timeout" and self.since else None
        starved = limit is not None and starvation.judge(load, limit) == "starved"
        status = self.close(grace=0.0 if kind == "timeout" else 0.5)
        if kind in ("timeout", "protocol"):  # the grader ended it: its exit says nothing
            return WorkerLost(kind, detail, load=load, starved=starved)
        if status.get("memory") or status.get("exit") == EXIT_MEMORY:
            return WorkerLost("memory", detail)
        if status.get("template_lost"):
            return WorkerLost("vanished", detail)
        if status.get("signal"):
            return WorkerLost("signal", detail, signal=status["signal"])
        return WorkerLost("exit", detail, exit_code=status.get("exit"))

    def receive(self, timeout: float, limit: float | None = None) -> tuple[dict, wire.Decoder]:
        """The next reply, whole, within `timeout` seconds from now (an absolute deadline:
        a worker that trickles bytes cannot stretch it). Anything malformed is the worker's.

        `limit`: the seconds of CPU time the call (begun at self.since) may have. A call that
        has not replied by the deadline but was starved of them is given more time, up to
        starvation.STRETCH times its limit (starvation.more_time); a timeout then says whether
        it was starved to the end. None: the deadline is final."""
        with turns.waiting():  # another exercise's grading may run meanwhile
            return self._receive(timeout, limit)

    def _receive(self, timeout: float, limit: float | None) -> tuple[dict, wire.Decoder]:
        from grader.common import wire  # here: the grader starts its template before torch

        deadline = time.monotonic() + timeout
        while limit is not None and self.since is not None and not self._readable(deadline):
            extra = starvation.more_time(self.meter.load(self.since), limit)
            if extra <= 0:
                raise self._lost("timeout", limit=limit) from None
            deadline = time.monotonic() + extra
            self.stretched += extra
        try:
            header, blob = wire.recv(self.sock, deadline)
            wire.check_reply(header)
        except TimeoutError:
            raise self._lost("timeout", limit=limit) from None
        except (EOFError, ConnectionError, OSError):
            raise self._lost("exit") from None
        except wire.WireError as exc:
            raise self._lost("protocol", str(exc)) from None
        except (ValueError, TypeError, RecursionError, MemoryError, OverflowError) as exc:
            raise self._lost("protocol", type(exc).__name__) from None
        return header, wire.Decoder(header, blob)

    def _readable(self, deadline: float) -> bool:
        """Wait until a reply starts to arrive (True) or the deadline passes (False)."""
        left = max(deadline - time.monotonic(), 0.0)
        wait = getattr(self.sock, "wait_readable", None)  # a portable worker's pipes
        if wait is not None:
            return bool(wait(left))
        try:
            ready, _, _ = select.select([self.sock], [], [], left)
        except (OSError, ValueError):
            return True  # wire.recv tells what is wrong with the channel
        return bool(ready)

    def request(
        self, header: dict, enc: wire.Encoder, timeout: float, limit: float | None = None
    ) -> tuple[dict, wire.Decoder]:
        from grader.common import wire

        self.since = self.meter.read()
        try:
            self.sock.settimeout(timeout)
            wire.send(self.sock, header, enc)
        except (TimeoutError, OSError):
            raise self._lost("exit") from None
        return self.receive(timeout, limit)

    def close(self, grace: float = 0.5, reuse: bool = False) -> dict:
        """End the worker (reap it within `grace` seconds). reuse: the exercise ended with
        nothing in flight, and a sandbox that reuses workers (portable mode's recycle) may
        keep it for its submission's next exercise instead."""
        if self.status is None:
            recycle = getattr(self.sandbox, "recycle", None) if reuse else None
            if recycle is not None and recycle(self):
                self.status = {"killed": False, "exit": None, "signal": None, "reused": True}
                return self.status
            try:
                self.sock.close()
            finally:
                self.status = self.sandbox.reap(self.pid, grace, self.groups)
        return self.status

"""One exercise's conversation with its worker: spawn, import, calls within the time limits.

A worker that dies or hangs is replaced for the next check (the student's file is imported
again), so one bad call costs that check, not the rest of the exercise.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import time
from collections import deque
from dataclasses import dataclass, field

from grader.common import ownlines, safetext, wire
from grader.grading.judge import error_dict
from grader.loader.config import Config
from grader.sandbox.client import Sandbox
from grader.sandbox.workers import Limits, Worker, WorkerLost
from grader.specs import strategies
from grader.specs.model import Check, Exercise

# Reply fields holding encoded values; a new probe puts its values under "data".
DATA_KEYS = ("outs", "grads", "args_after", "data")
SETUP_SECONDS = 120.0
"""How long a worker may take to start before it imports the student's file (the sandbox's
own work, not the student's time; only a hang reaches this)."""
WINDOW = 16
"""Requests a stream keeps in flight to one worker."""
WINDOW_BYTES = 64 * 1024
"""Request bytes a stream keeps in flight at most (see _window_bytes): inside the channel's
buffer, so that the grader never blocks sending while the worker computes or replies."""
METER_EVERY = 0.05
"""Seconds between readings of a streaming worker's CPU meters. A timed-out call is judged on
the meters since the reading before it could start, at most this much earlier: a small part of
a limit of a second or more; a reading per call (three files) was 7% of a batch's time."""
OUTPUT_SHOWN = 2000
"""Characters of what a student's call printed that a result keeps."""


@dataclass
class ImportFailure(Exception):
    """The student's file could not be imported: the exercise cannot be graded."""

    kind: str
    """error, timeout, exit, signal, tampered."""
    error: dict = field(default_factory=dict)
    exit_code: int | None = None
    signal: int | None = None


class Session:
    def __init__(
        self,
        sandbox: Sandbox,
        exercise: Exercise,
        scratch: str,
        config: Config,
        hide=(),
        deadline: float | None = None,
        owner: str | None = None,
    ):
        self.sandbox, self.exercise, self.scratch, self.config = sandbox, exercise, scratch, config
        self.owner = owner
        """The submission (its folder): a portable worker may serve its next exercise."""
        self.hide = list(hide)
        """Directories the worker must not see (see sandbox.isolation)."""
        self.deadline = (
            time.monotonic() + config.time_per_exercise if deadline is None else deadline
        )
        """When the exercise's time runs out (monotonic); its phases share it."""
        self.worker: Worker | None = None
        self.initial = _files(scratch)
        """The scratch copy's files as the grader wrote them (see restart)."""
        self.hits: dict[str, set] = {}
        """Forbidden APIs the runtime trap saw, by function."""
        self.forbid = self._forbid_map()
        self.in_flight: dict | None = None
        self.last_output: tuple[str, int] = ("", 0)
        """What the last call printed (capped) and how many characters were cut."""
        self.refunded = 0.0
        """Seconds added to the deadline for starved calls' extra time (see _refund)."""

    def _forbid_map(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for check in self.exercise.checks:
            if check.kind == "forbidden_api":
                for fn in check.options["functions"]:
                    out.setdefault(fn, []).extend(check.options["apis"])
        return out

    def forbidden_for(self, function: str) -> list[str]:
        owner = function.split(".")[0]
        apis = self.forbid.get("*", []) + self.forbid.get(function, [])
        if owner != function:
            apis += self.forbid.get(owner, [])
        return sorted(set(apis))

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def limits(self) -> Limits:
        return Limits(
            call_seconds=self.config.time_per_call,
            memory_bytes=self.config.memory_per_worker,
            output_bytes=self.config.output_cap,
            cpu_seconds=int(self.config.time_per_exercise) + 5,
        )

    def _plugin(self) -> list[str] | None:
        """[id, folder] of the exercise's plugin, whose probes the worker needs."""
        plugin = self.exercise.plugin
        return [self.exercise.id, str(plugin)] if plugin is not None else None

    def start(self) -> None:
        """Spawn a worker and import the file; raises ImportFailure when that fails."""
        if self.worker is not None:
            return
        began = time.monotonic()
        worker = self.sandbox.spawn(
            scratch=self.scratch,
            file=self.exercise.file,
            module=self.exercise.module,
            trap=self.exercise.trap_patterns(),
            limits=self.limits(),
            hide=self.hide,
            plugin=self._plugin(),
            owner=self.owner,
        )
        try:
            # Starting a worker is the grader's time, not the student's (milliseconds with the
            # fork server, a Python start-up with portable workers, and the worker's own
            # set-up: namespaces and mounts, which a loaded machine can make wait on the
            # kernel): up to its "importing", bounded only against a hang.
            header, _ = worker.receive(SETUP_SECONDS)
            self.deadline += time.monotonic() - began
            if header.get("importing") is True:
                limit = self.config.time_per_call
                timeout = min(limit, max(self.remaining(), 0.1))
                worker.since = worker.meter.read()
                header, _ = worker.receive(timeout, self._stretchable(limit, timeout))
        except WorkerLost as lost:
            raise ImportFailure(lost.kind, exit_code=lost.exit_code, signal=lost.signal) from None
        finally:
            self._refund(worker)
        if "import_error" in header:
            worker.close(grace=0.0)
            raise ImportFailure("error", error=error_dict(header["import_error"]))
        if header.get("tampered"):
            worker.close(grace=0.0)
            raise ImportFailure("tampered", error={"names": [str(n) for n in header["tampered"]]})
        self.worker = worker

    def _request(self, check: Check, kind, inputs: dict) -> tuple[dict, wire.Encoder, float]:
        """The probe request for one example, and the seconds its call may take."""
        held = inputs.get(strategies.STATE) or {}  # the caller's tensors' starting state
        enc = wire.Encoder({id(inputs[name]): grad for name, grad in held.items()})
        header = {
            "op": "call",
            "fn": check.function,
            "args": [enc.value(inputs[a.name]) for a in check.args if a.name in inputs],
            "forbid": self.forbidden_for(check.function or ""),
        }
        header.update(kind.request(check, inputs, enc))
        return header, enc, self.config.time_per_call * max(1, int(header.get("repeat", 1)))

    def call(self, check: Check, kind, inputs: dict) -> tuple[dict, dict]:
        """Run the kind's probe on one example; returns the reply header and decoded values."""
        if self.remaining() <= 0:
            raise WorkerLost("exercise_timeout")
        self.start()
        header, enc, limit = self._request(check, kind, inputs)
        self.in_flight = inputs
        timeout = min(limit, self.remaining())
        mark = self._output_size()
        worker = self.worker
        try:
            reply, dec = worker.request(
                header, enc, max(timeout, 0.05), self._stretchable(limit, timeout)
            )
        except WorkerLost as lost:
            raise self._lost(lost, mark) from None
        finally:
            self._refund(worker)
        return reply, self._values(check, reply, dec, mark)

    def _stretchable(self, limit: float, timeout: float) -> float | None:
        """The CPU time a call may claim more wall time for when starved (see
        Worker.receive): its limit, unless the exercise's time ends first (that deadline is
        final) or its starved calls were already given the exercise's time once more."""
        if timeout < limit or self.refunded >= self.config.time_per_exercise:
            return None
        return limit

    def _refund(self, worker: Worker) -> None:
        """Wall time a starved call was given beyond its limit is the machine's, not the
        exercise's: it moves the exercise's deadline (see _stretchable for how far)."""
        extra, worker.stretched = worker.stretched, 0.0
        if extra > 0:
            self.refunded += extra
            self.deadline += extra

    def _lost(self, lost: WorkerLost, mark: int) -> WorkerLost:
        self.last_output = self._output_since(mark)
        self.worker = None
        if lost.kind == "timeout" and self.remaining() <= 0:
            return WorkerLost("exercise_timeout")
        return lost

    def _values(self, check: Check, reply: dict, dec, mark: int | None) -> dict:
        """The reply's decoded values; last_output is what the call printed after `mark`
        (None: not read, for a stream, whose failures are graded again by call())."""
        try:
            values = {key: dec.value(reply[key]) if key in reply else None for key in DATA_KEYS}
        except (wire.WireError, ValueError, TypeError, RuntimeError, RecursionError) as exc:
            self.close()
            raise WorkerLost("protocol", str(exc)[:200]) from None
        if mark is not None:
            self.last_output = self._output_since(mark)
        values["graph"] = reply.get("graph") if isinstance(reply.get("graph"), dict) else {}
        if reply.get("forbidden"):
            self.hits.setdefault(check.function, set()).add(str(reply["forbidden"])[:200])
        return values

    def stream(self, check: Check, kind, examples):
        """call() on each example in turn, yielding (index, reply, values) in order, with up to
        WINDOW requests in flight: the worker computes the next answer while the grader judges
        this one. Each call keeps its own time limit, counted from when the worker could start
        it (the previous reply, or its request if later), as one call at a time would.
        `examples` is a sequence of inputs. Stopping early (a failure) restarts the session: the
        worker may have acted on requests that were not wanted, so the next call starts from a
        fresh import on the scratch copy as the grader wrote it."""
        self.start()
        worker = self.worker
        budget = _window_bytes(worker)
        pending: deque = deque()  # (index, bytes, limit, sent at)
        queued = 0
        nxt = 0
        ready = time.monotonic()  # when the worker could start the oldest pending request
        worker.since = worker.meter.read()  # its CPU and stall then (a timeout reads them)
        mark = self._output_size()
        finished = False
        built = None  # (frame, limit) of example nxt, encoded but not sent yet
        try:
            while nxt < len(examples) or pending:
                while nxt < len(examples) and len(pending) < WINDOW:
                    if self.remaining() <= 0:
                        raise WorkerLost("exercise_timeout")
                    if built is None:
                        header, enc, limit = self._request(check, kind, examples[nxt])
                        built = (enc.frame(header), limit)
                    frame, limit = built
                    if pending and queued + len(frame) > budget:
                        break
                    self._send(worker, frame, mark)
                    built = None
                    pending.append((nxt, len(frame), limit, time.monotonic()))
                    queued += len(frame)
                    nxt += 1
                index, size, limit, sent = pending[0]
                self.in_flight = examples[index]
                began = max(ready, sent)
                if worker.since.at < began - METER_EVERY:  # it waited for this request
                    worker.since = worker.meter.read()
                    began = worker.since.at
                left = limit - (time.monotonic() - began)
                timeout = min(left, self.remaining())
                # Its CPU time is read from worker.since, up to METER_EVERY before it began
                # (the previous call's last moments): that much more counts as its limit.
                fair = limit + max(began - worker.since.at, 0.0)
                try:
                    reply, dec = worker.receive(
                        max(timeout, 0.05), self._stretchable(fair, fair if timeout >= left else 0)
                    )
                except WorkerLost as lost:
                    raise self._lost(lost, mark) from None
                finally:
                    self._refund(worker)
                ready = time.monotonic()
                if ready - worker.since.at >= METER_EVERY:
                    worker.since = worker.meter.read()
                pending.popleft()
                queued -= size
                values = self._values(check, reply, dec, None)
                at = reply.get("output_at")
                mark = at if type(at) is int and mark <= at else self._output_size()
                yield index, reply, values
            finished = True
        finally:
            if not finished and self.worker is worker and pending:
                # It owes answers nobody will read, and may have acted on some of them (how
                # many is a matter of timing): start again from the state the grader made.
                self.restart()

    def _send(self, worker: Worker, frame: bytes, mark: int) -> None:
        try:
            worker.sock.settimeout(self.config.time_per_call)
            worker.sock.sendall(frame)
        except (TimeoutError, OSError):
            raise self._lost(worker._lost("exit"), mark) from None

    def _output_file(self):
        """The worker's output file, opened safely: the scratch folder belongs to the student's
        code, which may have replaced the file with a link, a hard link to a file only the
        grader may read, or a FIFO (None then)."""
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(os.path.join(self.scratch, ".output"), flags)
        except OSError:
            return None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            os.close(fd)
            return None
        return open(fd, "rb")

    def _output_size(self) -> int:
        f = self._output_file()
        if f is None:
            return 0
        with f:
            return os.fstat(f.fileno()).st_size

    def _output_since(self, mark: int) -> tuple[str, int]:
        """The text the worker printed after `mark` (its stdout and stderr share a file),
        made safe to show (no terminal escapes)."""
        f = self._output_file()
        if f is None:
            return "", 0
        with f:
            f.seek(mark)
            raw = f.read(OUTPUT_SHOWN * 4 + 1)
            rest = max(0, os.fstat(f.fileno()).st_size - mark - len(raw))
        text = safetext.clean(raw.decode("utf-8", errors="replace"), OUTPUT_SHOWN * 8)
        text = ownlines.output(text, self.scratch)  # the student's frames only, said once
        cut = max(0, len(text) - OUTPUT_SHOWN)
        return text[:OUTPUT_SHOWN], cut + rest

    def restart(self) -> None:
        """End the worker at once and put the scratch copy back as the grader wrote it
        (whatever the code wrote there is gone): the next call imports the file afresh, so
        what follows does not depend on how far the worker got."""
        if self.worker is not None:
            self.worker.close(grace=0.0)
            self.worker = None
        try:
            entries = list(os.scandir(self.scratch))
        except OSError:
            entries = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass
        for name, data in self.initial.items():
            try:
                with open(os.path.join(self.scratch, name), "wb") as f:
                    f.write(data)
            except OSError:
                pass

    def close(self, reuse: bool = False) -> None:
        """End the worker: every reply it owed is in, and what it printed is on file (it
        flushes before each reply), so it is killed at once, not waited for. reuse: the
        exercise ended as it should (no hidden check), and a portable worker may serve the
        submission's next exercise (grader.sandbox.worker.leftovers)."""
        if self.worker is not None:
            self.worker.close(grace=0.0, reuse=reuse and self.owner is not None)
            self.worker = None


def _files(folder: str) -> dict[str, bytes]:
    """The regular files directly in folder, by name."""
    out = {}
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if entry.is_file(follow_symlinks=False):
                    with open(entry.path, "rb") as f:
                        out[entry.name] = f.read()
    except OSError:
        pass
    return out


def _window_bytes(worker: Worker) -> int:
    """Request bytes a stream may keep in flight to this worker: what its channel surely
    buffers, so that sending never waits on a worker that is busy (or stuck) in a call. A pipe
    (portable workers: 4 kB on some systems) gets one request at a time."""
    sock = worker.sock
    if not isinstance(sock, socket.socket):
        return 0
    try:
        buffered = sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    except OSError:
        return 0
    return min(WINDOW_BYTES, buffered // 2)

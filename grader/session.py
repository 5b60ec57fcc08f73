"""One exercise's conversation with its worker: spawn, import, calls within the time limits.

A worker that dies or hangs is replaced for the next check (the student's file is imported
again), so one bad call costs that check, not the rest of the exercise.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field

from . import safetext, wire
from .config import Config
from .sandbox.client import Limits, Sandbox, Worker, WorkerLost
from .spec import Check, Exercise


# Reply fields holding encoded values; a new probe puts its values under "data".
DATA_KEYS = ("outs", "grads", "args_after", "data")
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
    def __init__(self, sandbox: Sandbox, exercise: Exercise, scratch: str, config: Config,
                 hide=(), deadline: float | None = None):
        self.sandbox, self.exercise, self.scratch, self.config = sandbox, exercise, scratch, config
        self.hide = list(hide)
        """Directories the worker must not see (see sandbox.isolation)."""
        self.deadline = (time.monotonic() + config.time_per_exercise if deadline is None
                         else deadline)
        """When the exercise's time runs out (monotonic); its phases share it."""
        self.worker: Worker | None = None
        self.hits: dict[str, set] = {}
        """Forbidden APIs the runtime trap saw, by function."""
        self.forbid = self._forbid_map()
        self.in_flight: dict | None = None
        self.last_output: tuple[str, int] = ("", 0)
        """What the last call printed (capped) and how many characters were cut."""

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
        return Limits(call_seconds=self.config.time_per_call,
                      memory_bytes=self.config.memory_per_worker,
                      output_bytes=self.config.output_cap,
                      cpu_seconds=int(self.config.time_per_exercise) + 5)

    def start(self) -> None:
        """Spawn a worker and import the file; raises ImportFailure when that fails."""
        if self.worker is not None:
            return
        began = time.monotonic()
        worker = self.sandbox.spawn(scratch=self.scratch, file=self.exercise.file,
                                    module=self.exercise.module,
                                    trap=self.exercise.trap_patterns(), limits=self.limits(),
                                    hide=self.hide)
        # Starting a worker is the grader's time, not the student's (milliseconds with the
        # fork server; a Python start-up with portable workers).
        self.deadline += time.monotonic() - began
        try:
            header, _ = worker.receive(min(self.config.time_per_call, max(self.remaining(), 0.1)))
        except WorkerLost as lost:
            raise ImportFailure(lost.kind, exit_code=lost.exit_code, signal=lost.signal) from None
        if "import_error" in header:
            worker.close(grace=0.0)
            raise ImportFailure("error", error=_error_dict(header["import_error"]))
        if header.get("tampered"):
            worker.close(grace=0.0)
            raise ImportFailure("tampered", error={"names": [str(n) for n in header["tampered"]]})
        self.worker = worker

    def call(self, check: Check, kind, inputs: dict) -> tuple[dict, dict]:
        """Run the kind's probe on one example; returns the reply header and decoded values."""
        if self.remaining() <= 0:
            raise WorkerLost("exercise_timeout")
        self.start()
        enc = wire.Encoder()
        header = {"op": "call", "fn": check.function,
                  "args": [enc.value(inputs[a.name]) for a in check.args if a.name in inputs],
                  "forbid": self.forbidden_for(check.function or "")}
        header.update(kind.request(check, inputs, enc))
        self.in_flight = inputs
        timeout = min(self.config.time_per_call * max(1, int(header.get("repeat", 1))),
                      self.remaining())
        mark = self._output_size()
        try:
            reply, dec = self.worker.request(header, enc, max(timeout, 0.05))
        except WorkerLost as lost:
            self.last_output = self._output_since(mark)
            self.worker = None
            if lost.kind == "timeout" and self.remaining() <= 0:
                raise WorkerLost("exercise_timeout") from None
            raise
        try:
            values = {key: dec.value(reply[key]) if key in reply else None
                      for key in DATA_KEYS}
        except (wire.WireError, ValueError, TypeError, RuntimeError, RecursionError) as exc:
            self.close()
            raise WorkerLost("protocol", str(exc)[:200]) from None
        self.last_output = self._output_since(mark)
        values["graph"] = reply.get("graph") if isinstance(reply.get("graph"), dict) else {}
        if reply.get("forbidden"):
            self.hits.setdefault(check.function, set()).add(str(reply["forbidden"])[:200])
        return reply, values

    def _output_file(self):
        """The worker's output file, opened safely: the scratch folder belongs to the student's
        code, which may have replaced the file with a link or a FIFO (None then)."""
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(os.path.join(self.scratch, ".output"), flags)
        except OSError:
            return None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
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
        cut = max(0, len(text) - OUTPUT_SHOWN)
        return text[:OUTPUT_SHOWN], cut + rest

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close(grace=0.2)
            self.worker = None


def _error_dict(raw) -> dict:
    raw = raw if isinstance(raw, dict) else {}
    tb = raw.get("traceback") if isinstance(raw.get("traceback"), list) else []
    return {"type": str(raw.get("type", "Exception"))[:100],
            "message": str(raw.get("message", ""))[:2000],
            "traceback": [str(line)[:300] for line in tb[:40]]}

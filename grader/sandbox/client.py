"""The grader's side of the sandbox: starts the template, spawns workers, talks to them.

Every failure of the student's process surfaces as WorkerLost, a BaseException so that
hypothesis stops at once instead of shrinking a crash.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from grader.common import turns
from grader.sandbox import cgroups, isolation, starvation, tmpdirs
from grader.sandbox.workers import Limits, Refused, SandboxError, Worker

ROOT = str(Path(__file__).resolve().parents[2])
# After main returns (its workers ended), os._exit skips tearing down torch's modules: a second
# or more on every run that the grader would otherwise wait for in close().
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from grader.sandbox.template import main; main(int(sys.argv[2])); "
    "import os; sys.stdout.flush(); sys.stderr.flush(); os._exit(0)"
)


class Sandbox:
    """One template process; start() returns at once, the first spawn waits for it.

    Where fork or `resource` is missing (Windows), or with GRADER_SANDBOX=portable, workers are
    spawned processes instead (grader.sandbox.portable)."""

    portable = None

    def __init__(self, namespaces: bool = True):
        """namespaces=False keeps workers out of namespaces even where they work (for tests of
        the fallback; the environment variable GRADER_NO_NAMESPACES=1 does the same)."""
        self.namespaces = namespaces
        self.tmp: str | None = None
        self.proc = None
        self.ctl = None
        self.ready = False
        self.refused: str | None = None
        self.lock = threading.Lock()
        """One request and its reply at a time on the template's channel (several exercises
        may be graded at once, grader.common.turns)."""

    def start(self) -> Sandbox:
        from grader.sandbox import portable

        if portable.wanted():
            self.portable = portable.PortableSandbox().start()
            self.ready, self.isolation = True, self.portable.isolation
            return self
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # The template's own temporary folder (torch writes caches there), removed by close().
        self.tmp = tempfile.mkdtemp(prefix="grader-template-")
        # Nothing of the grader's environment but the locale, paths and maths settings.
        env = dict(isolation.scrubbed_environment(os.environ), **tmpdirs.env(self.tmp))
        if not self.namespaces:
            env["GRADER_NO_NAMESPACES"] = "1"
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", BOOT, ROOT, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            env=env,
        )
        theirs.close()
        self.ctl, self.ready = ours, False
        self.isolation = None
        self.cgroups = None
        return self

    def warm(
        self, exercises: int | None = None, at_once: int | None = None, owner: str | None = None
    ) -> Sandbox:
        """Start the template now unless it is started: it imports torch while the caller
        goes on (spawn starts it anyway, and waits). `exercises`: how many the caller is
        about to grade, a worker each (portable workers are started ahead for them), `at_once`
        of them at a time, of the submission `owner` (portable workers it has serve on)."""
        if self.proc is None and self.portable is None:
            self.start()
        if self.portable is not None and exercises is not None:
            self.portable.expect(exercises, at_once, owner)
        return self

    def starting(self) -> bool:
        """True while the template is still importing torch (the caller may use the time)."""
        if self.portable is not None or self.proc is None or self.ready:
            return False
        ready, _, _ = select.select([self.ctl], [], [], 0)
        return not ready

    def _wait_ready(self) -> None:
        if self.proc is None:
            self.start()
        if not self.ready:
            self.ctl.settimeout(120)
            data = self.ctl.recv(256)
            if not data:
                raise SandboxError("the worker template failed to start")
            ready = json.loads(data)
            self.isolation = ready.get("isolation", "basic")
            self.cgroups = ready.get("cgroups", "none")
            self.refused = ready.get("refused") or isolation.scratch_refusal(self.isolation)
            self.ready = True
        if self.refused:
            raise Refused(self.refused)

    def _restart(self) -> None:
        self.close()
        self.start()
        self._wait_ready()

    def spawn(
        self,
        *,
        scratch: str,
        file: str,
        module: str,
        trap: list[str],
        limits: Limits,
        hide=(),
        plugin: list[str] | None = None,
        owner: str | None = None,
    ) -> Worker:
        """A worker for one file; `hide` lists directories it must not see (where isolation
        allows: the answer key, the class's other submissions); `plugin` is [exercise id,
        plugin folder] when the exercise brings probes of its own; `owner` names the
        submission, whose next exercise a portable worker may serve (grader.sandbox.worker.leftovers; a
        fork worker serves one exercise only)."""
        if self.portable is not None:
            return self.portable.spawn(  # which waits its turn (grader.common.turns)
                scratch=scratch,
                file=file,
                module=module,
                trap=trap,
                limits=limits,
                hide=hide,
                plugin=plugin,
                owner=owner,
            )
        request = json.dumps(
            {
                "op": "spawn",
                "scratch": scratch,
                "file": file,
                "module": module,
                "trap": trap,
                "limits": limits.as_dict(),
                "hide": safe_to_hide(hide, scratch),
                "plugin": plugin,
            }
        ).encode()
        with turns.waiting(), self.lock:  # one exchange at a time on the template's channel
            return self._spawn(request, limits)

    def _spawn(self, request: bytes, limits: Limits) -> Worker:
        for attempt in (0, 1):
            try:
                self._wait_ready()
                self.ctl.settimeout(30)
                self.ctl.send(request)
                msg, fds, _, _ = socket.recv_fds(self.ctl, 4096, 1)
                if not msg or not fds:
                    raise OSError("template closed")
                reply = json.loads(msg)
                return Worker(
                    self,
                    reply["pid"],
                    socket.socket(fileno=fds[0]),
                    limits,
                    starvation.Meter(reply.get("meters") or {}, pid=reply["pid"]),
                    groups=reply.get("groups") or [],
                )
            except (OSError, ValueError, SandboxError):
                if attempt:
                    raise SandboxError("the worker template stopped answering") from None
                self._restart()  # a worker killed its parent: start a new template

    def reap(self, pid: int, grace: float, groups=()) -> dict:
        with turns.waiting(), self.lock:
            return self._reap(pid, grace, groups)

    def _reap(self, pid: int, grace: float, groups) -> dict:
        try:
            self.ctl.settimeout(grace + 30)
            self.ctl.send(json.dumps({"op": "reap", "pid": pid, "grace": grace}).encode())
            data = self.ctl.recv(4096)
            if data:
                return json.loads(data)
        except (OSError, ValueError):
            pass
        # The template is gone (killed by its child); the worker's group may still live, and
        # its control groups are left to the grader to end and remove.
        _kill_group(pid)
        if (
            self.isolation != "namespaces" and isolation.is_root()
        ):  # and what left it, by its user id
            isolation.end_processes_of(isolation.worker_uid(pid), spawn=True)
        cgroups.Group.existing(groups).destroy()
        self._restart()
        return {"killed": True, "exit": None, "signal": None, "template_lost": True}

    def close(self) -> None:
        """End the template and every worker it still has, in order, on any path: before it
        is ready (still importing torch, so no worker exists yet) it is simply terminated;
        once ready, closing the channel makes it kill its unreaped workers and exit."""
        if self.proc is not None and not self.ready:
            self.proc.terminate()
        if self.portable is not None:
            self.portable.close()
        if self.ctl is not None:
            self.ctl.close()
            self.ctl = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.tmp is not None:  # after the template has ended: nothing writes there now
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None
        self.ready = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def safe_to_hide(paths, scratch: str = "") -> list[str]:
    """The directories to cover in a worker's view: those asked for, and always the project
    checkout (its .git, the grader's reference code, solutions/). What the worker needs inside
    them (its scratch copy, the Python installation) is bound back (see isolation.confine)."""
    out = set()
    for path in [*paths, ROOT]:
        real = os.path.realpath(path)
        if real != "/" and os.path.isdir(real):
            out.add(real)
    return sorted(out)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, 9)
    except (ProcessLookupError, PermissionError):
        pass

"""The template process: imports torch once, then forks one worker per request.

The grader talks to it over a SOCK_SEQPACKET control channel of JSON datagrams. For each
`spawn` it forks a child, applies the limits, and passes the grader one end of a fresh socket
pair (SCM_RIGHTS), so the grader talks to the worker directly. The template also stands between
the grader and the student's code: a worker that kills its parent kills this, not the grader.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import sys
import time


def apply_limits(limits: dict, scratch: str) -> None:
    """Resource limits and output redirection for a freshly forked worker."""
    memory = int(limits["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    out = int(limits["output_bytes"])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    fd = os.open(os.path.join(scratch, ".output"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    resource.setrlimit(resource.RLIMIT_FSIZE, (out, out))


def spawn(ctl: socket.socket, request: dict) -> None:
    from . import worker

    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            ctl.close()
            ours.close()
            os.setsid()
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
                signal.signal(sig, signal.SIG_DFL)
            apply_limits(request["limits"], request["scratch"])
            worker.serve(theirs, request)
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    theirs.close()
    socket.send_fds(ctl, [json.dumps({"pid": pid}).encode()], [ours.fileno()])
    ours.close()


def reap(ctl: socket.socket, request: dict) -> None:
    """Wait a little for the worker to end, then kill its whole process group."""
    pid = int(request["pid"])
    deadline = time.monotonic() + float(request.get("grace", 0.0))
    status, killed = None, False
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, None
        if done or time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    if not done:
        killed = True
        _killpg(pid)
        try:
            _, status = os.waitpid(pid, 0)
        except ChildProcessError:
            status = None
    _killpg(pid)  # whatever the worker started in its group goes too
    reply = {"killed": killed, "exit": None, "signal": None}
    if status is not None:
        if os.WIFEXITED(status):
            reply["exit"] = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            reply["signal"] = os.WTERMSIG(status)
    ctl.send(json.dumps(reply).encode())


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def main(fd: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ctl = socket.socket(fileno=fd)
    import torch  # noqa: F401  (the point of the template: pay for this once)

    from . import probes, worker  # noqa: F401

    ctl.send(b'{"ready": true}')
    while True:
        try:
            data = ctl.recv(65536)
        except OSError:
            break
        if not data:
            break
        request = json.loads(data)
        if request["op"] == "spawn":
            spawn(ctl, request)
        elif request["op"] == "reap":
            reap(ctl, request)


if __name__ == "__main__":
    main(int(sys.argv[1]))

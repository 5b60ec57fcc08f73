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
import tempfile
import time

from grader.sandbox import cgroups, isolation
from grader.sandbox.workers import EXIT_MEMORY

_ENV = dict(os.environ)
NPROC = 256
"""Processes and threads one worker uid may have (a fork bomb stops here)."""


def redirect_output(scratch: str) -> None:
    """stdout and stderr go to a file in the scratch directory (capped by RLIMIT_FSIZE)."""
    fd = os.open(os.path.join(scratch, ".output"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


def apply_limits(limits: dict, own_uid: bool = False) -> None:
    """Resource limits for the worker process itself; own_uid: it runs under a uid of its own,
    so a per-user process limit counts only its processes."""
    memory = int(limits["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if own_uid:
        resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    out = int(limits["output_bytes"])
    resource.setrlimit(resource.RLIMIT_FSIZE, (out, out))


LAYOUT: cgroups.Layout | None = None
"""Where per-worker control groups go (None: not looked for yet, or not root)."""
GROUPS: dict[int, cgroups.Group] = {}
_serial = 0


def _group(limits: dict) -> cgroups.Group | None:
    global _serial
    if LAYOUT is None or not LAYOUT.parents:
        return None
    _serial += 1
    return cgroups.Group(
        LAYOUT,
        f"grader-{os.getpid()}-{_serial}",
        memory_bytes=max(int(limits["memory_bytes"]), 256 * 2**20),
        pids=NPROC,
    )


def spawn(ctl: socket.socket, request: dict, pids: isolation.PidNamespaces | None) -> int:
    """Fork a worker; with `pids` (namespaces work here), it is PID 1 of a new PID namespace
    and is told its pid as the template sees it (its user id is made from that)."""
    ours, theirs = socket.socketpair()
    group = _group(request["limits"])
    told, tell = os.pipe() if pids is not None else (-1, -1)
    try:
        if pids is not None:
            pids.next_child()
        try:
            pid = os.fork()
        except BaseException:
            if pids is not None:
                pids.reset()
            raise
        if pid and pids is not None:  # the template's own (the child is in the new one)
            pids.reset()  # (raises only if the kernel changed its mind: the template ends)
        if pid == 0:
            code = 0
            try:
                ctl.close()
                ours.close()
                if group is not None:
                    group.join()  # before anything else: all the worker starts is counted
                own = 0
                if pids is not None:
                    os.close(tell)
                    own = int(os.read(told, 32) or b"0")
                    if own <= 0:
                        raise OSError("the template did not tell the worker its pid")
                _child(theirs, request, pids is not None, own)
            except MemoryError:
                code = EXIT_MEMORY
            except BaseException:
                code = 70
            finally:
                os._exit(code)
        if pids is not None:
            os.write(tell, str(pid).encode())
    finally:
        for fd in (told, tell):
            if fd >= 0:
                os.close(fd)
    theirs.close()
    if group is not None:
        GROUPS[pid] = group
    if pids is None and os.geteuid() == 0:
        UIDS[pid] = isolation.worker_uid(pid)
    try:
        meters = group.meters() if group is not None else {}
        dirs = group.dirs if group is not None else []
        socket.send_fds(
            ctl,
            [json.dumps({"pid": pid, "meters": meters, "groups": dirs}).encode()],
            [ours.fileno()],
        )
    except OSError:
        shutdown({pid})  # the grader is gone: nobody will ever reap this worker
        raise
    finally:
        ours.close()
    return pid


def _child(sock: socket.socket, request: dict, isolated: bool, pid: int) -> None:
    """The forked child: its own session; isolated, PID 1 of a fresh PID namespace (its `pid`
    is the one the template sees) that also enters new mount, network, IPC and UTS namespaces:
    when it ends, every process it started ends. Under a root template it runs under a user id
    of its own (isolation.drop_privileges), namespaces or not, before the student's file is
    imported; without namespaces the template ends that id's processes when it reaps."""
    from grader.sandbox import worker

    os.setsid()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)
    scratch = request["scratch"]
    os.environ.clear()  # the template's environment is scrubbed already; the worker gets less
    os.environ.update(isolation.scrubbed_environment(_ENV), HOME=scratch)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    redirect_output(scratch)
    if isolated:
        try:
            isolation.enter_namespaces(pid=False)  # the PID one is the template's doing
            isolation.confine(
                keep=[sys.base_prefix, sys.prefix, *sys.path[1:]],
                scratch=scratch,
                hide=request.get("hide", []),
            )
            os.environ["TMPDIR"] = "/tmp"  # its private one
        except OSError:
            isolated = False
    if isolated:
        try:
            isolation.mount_proc()
        except OSError:
            pass
    handles: dict[str, int] = {}
    dropped = os.geteuid() == 0  # a root grader: the worker never runs as root, in any mode
    if dropped:
        if not isolated:  # the Python installation may lie under a folder only root enters
            handles = isolation.library_handles(isolation.library_paths())
        # Raises PrivilegeError where it cannot: the child then exits, nothing imported.
        isolation.drop_privileges(isolation.worker_uid(pid or os.getpid()), scratch)
        if not isolated:
            isolation.end_leftovers()
    apply_limits(request["limits"], own_uid=dropped)
    worker.serve(sock, request, handles)


def _exited(pid: int, block: bool = False) -> bool:
    """Whether the child has ended, leaving it a zombie (its pid, and so its user id, stays
    taken until waitpid)."""
    try:
        flags = os.WEXITED | os.WNOWAIT | (0 if block else os.WNOHANG)
        return os.waitid(os.P_PID, pid, flags) is not None
    except ChildProcessError:
        return True


def reap(ctl: socket.socket, request: dict) -> None:
    """Wait a little for the worker to end, then kill its whole process group, and (a worker
    with a user id of its own, without namespaces) every process of that id, wherever it went;
    only then is the worker's pid freed."""
    pid = int(request["pid"])
    deadline = time.monotonic() + float(request.get("grace", 0.0))
    killed = False
    while not _exited(pid) and time.monotonic() < deadline:
        time.sleep(0.001)
    if not _exited(pid):
        killed = True
        _killpg(pid)
        _exited(pid, block=True)
    _end(pid)  # whatever the worker started in its group goes too
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = None
    group = GROUPS.pop(pid, None)
    reply = {"killed": killed, "exit": None, "signal": None, "memory": False}
    if group is not None:  # and whatever left the group, from its control group
        reply["memory"] = group.memory_exhausted()
        group.destroy()
    if status is not None:
        if os.WIFEXITED(status):
            reply["exit"] = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            reply["signal"] = os.WTERMSIG(status)
    ctl.send(json.dumps(reply).encode())


UIDS: dict[int, int] = {}
"""The user ids of live workers without a PID namespace, by pid: reaping one ends that id."""


def _end(pid: int) -> None:
    """Kill the worker's process group, and every process of its user id where it has one."""
    _killpg(pid)
    uid = UIDS.pop(pid, None)
    if uid is not None:
        try:
            isolation.end_processes_of(uid)
        except OSError:
            pass


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _namespaces_work() -> bool:
    """Try the namespaces and the confined view once in a throwaway child; some containers
    refuse them."""
    if not isolation.available() or os.environ.get("GRADER_NO_NAMESPACES"):
        return False
    scratch = tempfile.mkdtemp(prefix="grader-probe-")
    try:
        pid = os.fork()
        if pid == 0:
            try:
                isolation.enter_namespaces()
                isolation.confine(
                    keep=[sys.base_prefix, sys.prefix, *sys.path[1:]], scratch=scratch, hide=[]
                )
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
    finally:
        os.rmdir(scratch)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def shutdown(live: set[int]) -> None:
    """The grader hung up: end every worker it did not reap (and what each started, and its
    control group)."""
    for pid in sorted(live):
        _killpg(pid)
        _exited(pid, block=True)
        _end(pid)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    live.clear()
    for pid, group in list(GROUPS.items()):  # nothing may outlive the grader
        _killpg(pid)
        group.destroy()
    GROUPS.clear()


def main(fd: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ctl = socket.socket(fileno=fd)
    live: set[int] = set()
    try:
        _serve(ctl, live)
    except OSError:
        pass  # the grader closed the channel (it ended, or gave up on us): nothing to say
    finally:
        shutdown(live)


def _serve(ctl: socket.socket, live: set[int]) -> None:
    global LAYOUT
    import torch  # noqa: F401  (the point of the template: pay for this once)

    from grader.sandbox import probes, trap, worker  # noqa: F401

    worker.preload()  # what a student's first call would import lazily (worker.PRELOAD)

    trap.alias_index()  # once here, not in every worker

    pids = isolation.PidNamespaces.try_make() if _namespaces_work() else None
    # Under root, a worker drops to a user of its own: where it cannot, nothing is graded.
    refused = isolation.refusal(isolation.library_paths()) if os.geteuid() == 0 else None
    LAYOUT = (
        cgroups.Layout()
        if isolation.available() and not os.environ.get("GRADER_NO_CGROUPS")
        else None
    )
    ctl.send(
        json.dumps(
            {
                "ready": True,
                "isolation": "namespaces" if pids else "basic",
                "cgroups": LAYOUT.describe() if LAYOUT else "none",
                "refused": refused,
            }
        ).encode()
    )
    while True:
        try:
            data = ctl.recv(65536)
        except OSError:
            break
        if not data:
            break
        request = json.loads(data)
        if request["op"] == "spawn":
            probes.load_plugin(request.get("plugin"))  # here, before any student code
            live.add(spawn(ctl, request, pids))
        elif request["op"] == "reap":
            live.discard(int(request["pid"]))
            reap(ctl, request)


if __name__ == "__main__":
    main(int(sys.argv[1]))

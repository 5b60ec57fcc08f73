"""Least privilege for a worker, with what the platform offers (Linux namespaces when root).

Where the grader runs as root on Linux, each worker gets:

- new mount, network and PID namespaces: the answer key and other submissions are hidden under
  empty read-only tmpfs mounts, there is no network (only a downed loopback), /proc shows only the
  worker's own processes, and when the worker (PID 1 of its namespace) ends, the kernel ends every
  process it started, including ones that left its session;
- a user id of its own (one per live worker), so it cannot signal the grader, the template or
  another worker, nor read another worker's scratch directory.

Elsewhere (not root, or namespaces refused, as in some containers) workers still get their own
session and process group, which is killed when the exercise ends, and the resource limits; the
README's security model says what that leaves open.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 0x4000
MS_PRIVATE = 1 << 18

UID_BASE = 200_000
"""Workers run as UID_BASE + (pid % UID_SPAN): ids no account on the machine uses."""
UID_SPAN = 100_000

_libc = None


def _lib():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    return _libc


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def available() -> bool:
    return os.name == "posix" and hasattr(os, "fork") and os.geteuid() == 0


def enter_namespaces() -> None:
    """unshare mount, network and PID namespaces (the PID one applies to the next child)."""
    _check(_lib().unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID), "unshare")
    _check(_lib().mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")


def hide(paths) -> None:
    """Cover each existing directory with an empty read-only tmpfs."""
    for path in paths:
        if path and os.path.isdir(path):
            _check(_lib().mount(b"tmpfs", os.fsencode(path), b"tmpfs",
                                MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=0"),
                   f"hide {path}")


def expose(paths) -> None:
    """Let a worker uid reach these paths (the Python installation) even where an ancestor is
    closed to others (e.g. /root, mode 700): cover that ancestor with an empty tmpfs of mode 755
    and bind the one child on the way back. The rest of the ancestor stays hidden."""
    blocked: dict[str, set[str]] = {}
    for path in paths:
        parts = os.path.realpath(path).strip("/").split("/")
        current = "/"
        for i, part in enumerate(parts[:-1]):
            current = os.path.join(current, part)
            if not os.stat(current).st_mode & 0o001:
                blocked.setdefault(current, set()).add(parts[i + 1])
                break
    for ancestor, children in sorted(blocked.items()):
        fds = {c: os.open(os.path.join(ancestor, c), os.O_PATH | os.O_DIRECTORY)
               for c in children}
        try:
            _check(_lib().mount(b"tmpfs", os.fsencode(ancestor), b"tmpfs", MS_NOSUID | MS_NODEV,
                                b"mode=755,size=64k"), f"cover {ancestor}")
            for child, fd in fds.items():
                target = os.path.join(ancestor, child)
                os.mkdir(target, 0o755)
                _check(_lib().mount(os.fsencode(f"/proc/self/fd/{fd}"), os.fsencode(target),
                                    None, MS_BIND | MS_REC, None), f"expose {target}")
            _check(_lib().mount(None, os.fsencode(ancestor), None,
                                MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
                   f"seal {ancestor}")
        finally:
            for fd in fds.values():
                os.close(fd)


def mount_proc() -> None:
    """A /proc that shows only this PID namespace (call as its PID 1)."""
    _check(_lib().mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None),
           "mount /proc")


def worker_uid(pid: int) -> int:
    return UID_BASE + pid % UID_SPAN


def drop_privileges(uid: int, scratch: str) -> None:
    """Own the scratch directory, then become that user for good."""
    os.chown(scratch, uid, uid)
    for name in os.listdir(scratch):
        os.chown(os.path.join(scratch, name), uid, uid)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)

"""Least privilege for a worker, with what the platform offers (Linux namespaces when root).

Where the grader runs as root on Linux, each worker gets:

- new mount, network, IPC, UTS and PID namespaces: it sees only the Python installation, its
  scratch copy, the system folders and private /tmp, /dev/shm and /dev (see confine()); there
  is no network and no host Unix socket (only a downed loopback), /proc shows only the worker's
  own processes, and when the worker (PID 1 of its namespace) ends, the kernel ends every
  process it started, including ones that left its session;
- a user id of its own (one per live worker), so it cannot signal the grader, the template or
  another worker, nor read another worker's scratch directory;
- a scrubbed environment (scrubbed_environment()); a control group of its own is set up by the
  template where the machine allows (grader/sandbox/cgroups.py).

Elsewhere (not root, or namespaces refused, as in some containers) workers still get their own
session and process group, which is killed when the exercise ends, and the resource limits; the
security model (docs/security.md) says what that leaves open.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUTS = 0x04000000
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


def enter_namespaces(pid: bool = True) -> None:
    """unshare mount, network, IPC, UTS and (pid=True) PID namespaces (the PID one applies to
    the next child). The network namespace also holds abstract Unix sockets; the IPC one System
    V shared memory, semaphores and POSIX message queues."""
    _check(
        _lib().unshare(
            CLONE_NEWNS | CLONE_NEWNET | (CLONE_NEWPID if pid else 0) | CLONE_NEWIPC | CLONE_NEWUTS
        ),
        "unshare",
    )
    _check(_lib().mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")


class PidNamespaces:
    """The template's next child as PID 1 of a PID namespace of its own, without a second
    fork: before each fork, unshare(CLONE_NEWPID) (it applies to children only); after it,
    setns back to the template's own namespace, so that the next unshare may make a new one.
    (A fork of the template, which holds torch, costs about 25 ms of CPU with its exit.)"""

    def __init__(self):
        self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)

    def next_child(self) -> None:
        _check(_lib().unshare(CLONE_NEWPID), "unshare pid")

    def reset(self) -> None:
        _check(_lib().setns(self.own, CLONE_NEWPID), "setns pid")

    @classmethod
    def try_make(cls) -> PidNamespaces | None:
        """One that works here (tried once: unshare, then back), or None."""
        try:
            made = cls()
            made.next_child()
            made.reset()
            return made
        except OSError:
            return None


SYSTEM_DIRS = {
    "usr",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "bin",
    "sbin",
    "etc",
    "proc",
    "sys",
    "dev",
}
"""Top-level directories a worker sees as they are (read-only to its uid). Every other one
(/home, /root, /work, /opt, /var, /run, /srv, /mnt, /tmp, ...) is covered with an empty tmpfs
with only what the worker needs bound back."""
DEVICES = ("null", "zero", "full", "random", "urandom")
PRIVATE_TMPFS = "mode=1777,size=32m,nr_inodes=4096"
"""/tmp and /dev/shm of one worker: empty, writable, small, gone with the worker."""


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _mount_tmpfs(target: str, options: str, readonly: bool = False) -> None:
    flags = MS_NOSUID | MS_NODEV | (MS_RDONLY | MS_NOEXEC if readonly else 0)
    _check(
        _lib().mount(b"tmpfs", os.fsencode(target), b"tmpfs", flags, options.encode()),
        f"cover {target}",
    )


def _bind(fd: int, target: str, readonly: bool) -> None:
    _check(
        _lib().mount(
            os.fsencode(f"/proc/self/fd/{fd}"), os.fsencode(target), None, MS_BIND | MS_REC, None
        ),
        f"bind {target}",
    )
    if readonly:
        _check(
            _lib().mount(
                None,
                os.fsencode(target),
                None,
                MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
                None,
            ),
            f"seal {target}",
        )


def cover(
    folder: str, keep, writable=(), options: str = "mode=755,size=1m", seal: bool = True
) -> None:
    """Cover folder with an empty tmpfs, then bind back the paths in keep (read-only) and
    writable (read-write) that lie inside it, at the same paths."""
    inside = sorted({p for p in [*keep, *writable] if _inside(p, folder) and p != folder})
    fds = {}
    try:
        for path in inside:
            try:
                fds[path] = os.open(path, os.O_PATH)
            except OSError:
                continue
        _mount_tmpfs(folder, options)
        for path, fd in fds.items():
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(path, 0o755, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
            _bind(fd, path, readonly=path not in writable)
        if seal:
            _check(
                _lib().mount(
                    None,
                    os.fsencode(folder),
                    None,
                    MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
                    None,
                ),
                f"seal {folder}",
            )
    finally:
        for fd in fds.values():
            os.close(fd)


def _minimal(paths) -> list[str]:
    """The paths without those inside another one of them."""
    out: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(_inside(path, p) for p in out):
            out.append(path)
    return out


def confine(*, keep, scratch: str, hide) -> None:
    """The worker's view of the file system (in its own mount namespace):

    - every top-level directory but the system ones (SYSTEM_DIRS) is an empty read-only tmpfs,
      with only `keep` (the Python installation, read-only) and `scratch` (read-write) bound
      back at their paths: no project checkout (.git included), no home folders, no sockets
      under /run or /var, no other worker's files;
    - /tmp and /dev/shm are empty private tmpfs (with the scratch directory bound into /tmp
      where it lives there); /dev holds only null, zero, full, random and urandom;
    - each path in `hide` still visible after that (the answer key, the submissions, the
      checkout, wherever they are) is covered too, keeping what of keep/scratch lies inside.
    Top-level regular files are covered by /dev/null."""
    hide = [os.path.realpath(h) for h in hide if h]
    hide = [h for h in hide if h != "/"]
    scratch = os.path.realpath(scratch)
    keep = [os.path.realpath(k) for k in keep if k and os.path.exists(k)]
    # a kept path that holds something hidden (the checkout on sys.path) is not kept
    keep = _minimal(
        k
        for k in keep
        if not any(_inside(h, k) for h in hide) and k != "/" and not _inside(scratch, k)
    )
    for entry in sorted(os.listdir("/")):
        top = "/" + entry
        if entry in SYSTEM_DIRS or os.path.islink(top):
            continue
        if any(_inside(top, k) for k in keep):
            continue  # the Python installation is this whole folder
        if os.path.isdir(top):
            if entry == "tmp":
                cover(top, keep, writable=[scratch], options=PRIVATE_TMPFS, seal=False)
            else:
                cover(top, keep, writable=[scratch])
        elif os.path.isfile(top):
            fd = os.open("/dev/null", os.O_PATH)
            try:
                _bind(fd, top, readonly=True)
            finally:
                os.close(fd)
    _private_dev()
    for path in _minimal(hide):
        if os.path.isdir(path):
            cover(path, keep, writable=[scratch])


def _private_dev() -> None:
    fds = {
        name: os.open(f"/dev/{name}", os.O_PATH)
        for name in DEVICES
        if os.path.exists(f"/dev/{name}")
    }
    try:
        _mount_tmpfs("/dev", "mode=755,size=64k")
        for name, fd in fds.items():
            os.close(os.open(f"/dev/{name}", os.O_CREAT | os.O_WRONLY, 0o666))
            _bind(fd, f"/dev/{name}", readonly=False)
        for name, target in (
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
        ):
            os.symlink(target, f"/dev/{name}")
        os.mkdir("/dev/shm", 0o1777)
        _mount_tmpfs("/dev/shm", PRIVATE_TMPFS)
        _check(
            _lib().mount(None, b"/dev", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID, None),
            "seal /dev",
        )
    finally:
        for fd in fds.values():
            os.close(fd)


ENV_KEEP = {
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "LD_LIBRARY_PATH",
    "TMPDIR",
    "PYTHONHASHSEED",
    "GRADER_NO_NAMESPACES",
    "GRADER_NO_CGROUPS",
    "GRADER_CPU_GROUPS",
}
ENV_KEEP_PREFIXES = ("LC_", "OMP_", "MKL_", "OPENBLAS_", "KMP_", "GOMP_", "TORCH_")
"""What of the grader's environment reaches the template and its workers: the locale, the
library search path, and the thread and CPU settings of torch's maths libraries. Not tokens,
credentials, HOME or the CI's variables."""


def scrubbed_environment(env) -> dict:
    return {k: v for k, v in env.items() if k in ENV_KEEP or k.startswith(ENV_KEEP_PREFIXES)}


def mount_proc() -> None:
    """A /proc that shows only this PID namespace (call as its PID 1)."""
    _check(
        _lib().mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None),
        "mount /proc",
    )


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

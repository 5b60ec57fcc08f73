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
import errno
import os
import signal
import stat

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

ID_RANGE = (0x7000_0000, 1 << 22)
"""Worker user and group ids: ID_RANGE[0] + pid (pids stay under 2**22, the kernel's limit, so
each live worker has an id of its own). 0x70000000 and up is a range no distribution, systemd
container or /etc/subuid allocation uses. Where a user namespace maps fewer ids (a rootless
container), the top of what it maps is used instead (see id_range())."""
SYSTEM_IDS = 10_000
"""Below this, the mapped ids of a narrow user namespace belong to the system's accounts."""

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


def is_root() -> bool:
    """Whether this process runs as root (never on Windows)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


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


class PrivilegeError(OSError):
    """A root process could not become an unprivileged worker (the grader refuses to grade)."""


PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
_range: tuple[int, int] | None = None


def _mapped(path: str) -> list[tuple[int, int]]:
    """The ids this user namespace maps, as [start, end) ranges (every id outside one)."""
    try:
        with open(path) as f:
            out = []
            for line in f:
                inside, _, count = (int(x) for x in line.split())
                out.append((inside, inside + count))
            return out
    except (OSError, ValueError):
        return [(0, 2**32 - 1)]


def id_range() -> tuple[int, int]:
    """(first id, how many) for workers: ID_RANGE where both maps hold it, else the largest range
    of ids both map above SYSTEM_IDS (nobody, 65534, left out); (0, 0) where there is none."""
    global _range
    if _range is None:
        base, span = ID_RANGE
        pairs = [
            (max(a, c), min(b, d))
            for a, b in _mapped("/proc/self/uid_map")
            for c, d in _mapped("/proc/self/gid_map")
        ]
        if any(lo <= base and base + span <= hi for lo, hi in pairs):
            _range = ID_RANGE
        else:
            parts = []
            for lo, hi in pairs:
                lo = max(lo, SYSTEM_IDS)
                parts += [(lo, min(hi, 65534)), (max(lo, 65536), hi)]
            lo, hi = max(parts, key=lambda r: r[1] - r[0], default=(0, 0))
            _range = (lo, hi - lo) if hi > lo else (0, 0)
    return _range


def worker_uid(pid: int) -> int:
    """The user and group id of the worker whose pid (as the template sees it) is `pid`: one of
    its own while it lives (see ID_RANGE)."""
    base, span = id_range()
    if span <= 0:
        raise PrivilegeError("no user id is free for a worker: this user namespace maps none")
    return base + pid % span


def _capabilities() -> list[int]:
    """This process's permitted, effective and ambient capability sets (empty if unreadable)."""
    try:
        with open("/proc/self/status") as f:
            return [int(line.split()[1], 16) for line in f if line.startswith(CAP_LINES)]
    except (OSError, ValueError, IndexError):
        return []


CAP_LINES = ("CapPrm:", "CapEff:", "CapAmb:")


def own(scratch: str, uid: int) -> None:
    """Give the scratch directory and what the grader put in it to `uid` (links not followed)."""
    os.chown(scratch, uid, uid)
    for name in os.listdir(scratch):
        os.chown(os.path.join(scratch, name), uid, uid, follow_symlinks=False)


def prepare() -> None:
    """Look up the C functions drop_privileges needs, before a fork: a forked child of a process
    with threads must not load libraries."""
    _lib().prctl  # noqa: B018


def drop_privileges(uid: int, scratch: str | None = None) -> None:
    """Become `uid` for good, as user and group: supplementary groups cleared, real, effective
    and saved ids all `uid` (no way back to root), no capability left (the bounding set dropped
    too where allowed), and no_new_privs, so that no setuid program or file capability can give
    any back. With `scratch`, that directory is given to `uid` first. Raises PrivilegeError
    where a step fails or the result is not that, and the caller must then run nothing."""
    if scratch is not None:
        own(scratch, uid)

    def prctl(*args: int) -> int:
        return _lib().prctl(*(ctypes.c_ulong(a) for a in args))

    try:
        _check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        try:
            os.setgroups([])
        except OSError:
            if os.getgroups():  # a user namespace may refuse setgroups; with none, no matter
                raise
        for cap in range(64):  # needs CAP_SETPCAP: best effort (setresuid clears the rest)
            if prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
                break
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        raise PrivilegeError(f"could not become user {uid}: {exc.strerror or exc}") from None
    if os.getresuid() != (uid,) * 3 or os.getresgid() != (uid,) * 3 or os.getgroups():
        raise PrivilegeError(f"could not become user {uid}: some root id or group is left")
    if any(_capabilities()):
        raise PrivilegeError(f"user {uid} kept capabilities (securebits keep them here)")
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise PrivilegeError(f"user {uid} could become root again")


def end_processes_of(uid: int, spawn: bool = False) -> None:
    """Kill every process whose user id is `uid` (a worker's, all its children wherever they
    went: other sessions, double forks): a child becomes `uid` and sends SIGKILL to every
    process it may signal (kill -1: not itself). spawn: a fresh interpreter does it instead of a
    fork (from a process with threads, such as the grader)."""
    if spawn:
        import subprocess
        import sys

        subprocess.run(
            [sys.executable, "-I", "-S", "-c", _KILL_ALL, str(uid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={},
            check=False,
        )
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            _kill_all()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def end_leftovers() -> None:
    """Called as a worker's user before any student code: end what an earlier worker of the
    same id left (a template that died before it could reap)."""
    _kill_all()


def _kill_all() -> None:
    for _ in range(4):  # zombies count as found: a few rounds, then done
        try:
            os.kill(-1, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return


_KILL_ALL = (
    "import os, sys\n"
    "u = int(sys.argv[1])\n"
    "os.setresgid(u, u, u)\n"
    "os.setresuid(u, u, u)\n"
    "for _ in range(4):\n"
    "    try:\n"
    "        os.kill(-1, 9)\n"
    "    except OSError:\n"
    "        break\n"
)


def others_can_reach(path: str) -> bool:
    """Another user (not the owner, not in its group) can enter every folder from / down to
    `path` and list `path`: what a worker's user can read without namespaces."""
    path = os.path.realpath(path)
    try:
        parts = path.strip("/").split("/") if path != "/" else []
        folder = "/"
        for part in ["", *parts]:
            folder = os.path.join(folder, part) if part else folder
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return False
        return bool(os.stat(path).st_mode & stat.S_IROTH)
    except OSError:
        return False


def library_handles(paths) -> dict[str, int]:
    """Descriptors of the library folders in `paths` (the Python installation's entries of
    sys.path) that other users cannot reach through their parents (a Python under /root, mode
    0700), opened while root: after the drop, the worker imports from them as /proc/self/fd/N
    (see reach()). Only library folders: never the project checkout."""
    out = {}
    for path in paths:
        if not path or not os.path.isdir(path) or others_can_reach(path):
            continue
        try:
            out[path] = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
    return out


def library_paths() -> list[str]:
    """The entries of sys.path that belong to the Python installation (its standard library and
    site-packages), not the project checkout."""
    import sys

    stdlib = os.path.join(sys.base_prefix, "lib")
    return [p for p in sys.path if p and ("site-packages" in p or p.startswith(stdlib))]


def reach(handles: dict[str, int]) -> None:
    """After the drop: sys.path and the search path of every loaded package go through the
    descriptors of library_handles() instead of folders this user cannot enter."""
    if not handles:
        return
    import importlib
    import sys

    moves = []
    for path, fd in handles.items():
        for form in {path, os.path.realpath(path)}:
            moves.append((form.rstrip("/"), f"/proc/self/fd/{fd}"))
    moves.sort(key=lambda m: -len(m[0]))

    def moved(entry):
        if not isinstance(entry, str):
            return entry
        for old, new in moves:
            if entry == old or entry.startswith(old + "/"):
                return new + entry[len(old) :]
        return entry

    sys.path[:] = [moved(p) for p in sys.path]
    for module in list(sys.modules.values()):
        search = getattr(module, "__path__", None)
        if isinstance(search, list):
            search[:] = [moved(p) for p in search]
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()


def unreadable(paths, handles: dict[str, int]) -> str | None:
    """The first of `paths` (library folders) this process cannot list, through its handle
    where it has one; None when it can read them all."""
    for path in paths:
        if not path or (path not in handles and not os.path.isdir(path)):
            continue
        where = f"/proc/self/fd/{handles[path]}" if path in handles else path
        if not os.access(where, os.R_OK | os.X_OK):
            return path
    return None


CANNOT_DROP = (
    "the grader runs as root, and a submission's code must never run as root, but its worker "
    "could not become an unprivileged user ({detail}). Run the grader as a normal user, or give "
    "the container the right to change user (the capabilities CAP_SETUID and CAP_SETGID, which "
    "Docker grants by default)."
)
CANNOT_READ = (
    "the grader runs as root, so a submission's code runs as an unprivileged user, which cannot "
    "read {path} (part of the Python installation). Make it readable by other users "
    "(chmod -R o+rX {path}), install Python where they can read it, or run the grader as a "
    "normal user."
)
CANNOT_REACH = (
    "the grader runs as root without namespaces, so a submission's code runs as an "
    "unprivileged user, which cannot enter the temporary folder {path} where its copy is made. "
    "Set TMPDIR to a folder other users can enter (such as /tmp), or run the grader as a normal "
    "user."
)


def refusal(libraries) -> str | None:
    """Why a worker of this root process could not run its code unprivileged (CANNOT_DROP,
    CANNOT_READ), tried in a forked child that drops as a worker does; None when it can."""
    prepare()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        message = ""
        try:
            os.close(r)
            handles = library_handles(libraries)
            drop_privileges(worker_uid(os.getpid()))
            path = unreadable(libraries, handles)
            if path is not None:
                message = CANNOT_READ.format(path=path)
        except BaseException as exc:  # PrivilegeError, or anything else that stops a drop
            message = CANNOT_DROP.format(detail=str(exc) or type(exc).__name__)
        finally:
            try:
                os.write(w, message.encode()[:8000])
            finally:
                os._exit(0)
    os.close(w)
    chunks = []
    try:
        while chunk := os.read(r, 8192):
            chunks.append(chunk)
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    text = b"".join(chunks).decode(errors="replace")
    return text or None


def scratch_refusal(isolation_mode: str | None) -> str | None:
    """Why a root grader's workers, which run as users of their own, could not enter their
    scratch copies (made in the temporary folder; namespaces bind them back): None if they can,
    or the grader is not root."""
    import tempfile

    if isolation_mode == "namespaces" or not is_root():
        return None
    folder = tempfile.gettempdir()
    if others_can_reach(folder):
        return None
    return CANNOT_REACH.format(path=folder)


def preflight() -> str | None:
    """Why a root grader here would refuse to grade (CANNOT_DROP, CANNOT_READ, CANNOT_REACH),
    asked once before a class is graded, so that the class is refused with one message rather
    than each submission; None where it would grade (or it is not root)."""
    if os.name != "posix" or not is_root():
        return None
    found = refusal(library_paths())
    if found is None and (not available() or os.environ.get("GRADER_NO_NAMESPACES")):
        found = scratch_refusal("basic")
    return found

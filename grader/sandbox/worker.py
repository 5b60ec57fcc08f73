"""The worker: imports one student file and answers probe requests with raw observations.

Runs in a process forked from the template, with the limits already applied. Everything here is
untrusted once the student's file is imported: it only reports data (see grader.common.wire), and the
grader computes every verdict from that data.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import linecache
import os
import socket
import subprocess
import sys
import tempfile
import threading
import types
import warnings

import torch

from grader.common import wire
from grader.sandbox import isolation, magics, probes, tmpdirs
from grader.sandbox.tracebacks import describe_exception, memory_peak, student_traceback
from grader.sandbox.trap import ForbiddenCall, Trap, snapshot, tampered

PRELOAD = ("torch._dynamo", "torch.func", "torch.fx.experimental.symbolic_shapes")
"""What torch imports lazily on a first use that answers make (an optimizer's step and
torch.compile import torch._dynamo; torch.func; .backward with an upstream gradient imports
symbolic_shapes and sympy): seconds a student's first call would otherwise spend inside its time
limit, and modules a worker running as another user might not read. Imported by the template
(fork mode) or by each portable worker before it says it is ready."""


def preload() -> None:
    for name in PRELOAD:
        importlib.import_module(name)


def import_student(path: str, module_name: str):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def isolate_path(scratch: str) -> None:
    """Make the scratch copy the only non-library place imports come from."""
    sys.path[:] = [scratch] + isolation.library_paths()
    for name in list(sys.modules):
        if name == "solutions" or name.startswith("solutions."):
            del sys.modules[name]


def private_tmp(scratch: str) -> str:
    """A temporary directory inside the scratch copy, for everything the worker and the
    libraries it calls write: it goes when the grader removes the scratch copy, so nothing of
    the worker is left in the machine's /tmp."""
    tmp = os.path.join(scratch, ".tmp")
    os.makedirs(tmp, mode=0o700, exist_ok=True)
    os.environ.update(tmpdirs.env(tmp))
    tempfile.tempdir = tmp  # the template may have asked for the default already
    return tmp


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # a student's replacement stream: its own business
            pass


RESERVE = 16 * 2**20
"""Memory a worker holds back while it serves, freed when the student's code has used up the
rest (a list grown in an endless loop that a global keeps): describing the MemoryError and
sending the reply need some, and without it the worker's own end would be told as an exit."""


def _memory_error() -> dict:
    return {"type": "MemoryError", "message": "", "traceback": [], **memory_peak()}


def _described(exc: BaseException, scratch: str, reserve: list) -> dict:
    """What escaped a probe, described; a MemoryError (the student's, or one the description
    itself met) once the reserve is freed."""
    if isinstance(exc, MemoryError):
        reserve.clear()
    try:
        return describe_exception(exc, scratch)
    except MemoryError:
        reserve.clear()
        return _memory_error()


def _end(sock, pristine, trap, before: dict, scratch: str, module: str) -> bool:
    """The grader is done with this exercise: undo what can be undone, say whether the worker
    may serve the submission's next exercise (see leftovers), True where it may."""
    _flush()
    try:
        why = leftovers(pristine, trap, before)
        forget(pristine, scratch, module)
    except BaseException as exc:  # whatever the student's objects did meanwhile
        why = [f"the check itself failed ({type(exc).__name__})"]
    wire.send(sock, {"ended": True, "clean": not why, "why": [str(w)[:200] for w in why[:5]]})
    return not why


def serve(
    sock: socket.socket, request: dict, handles: dict[str, int] | None = None, pristine=None
) -> bool:
    """Import the student's file, then answer probe requests until the grader hangs up.
    handles: library folders this (dropped) user reaches only through descriptors opened while
    root (grader.sandbox.isolation.library_handles). pristine: a portable worker's state before
    its first exercise (Pristine): the grader may then end the exercise
    with an "end" request instead of hanging up, and True is returned where the worker may
    serve the submission's next exercise."""
    scratch = request["scratch"]
    os.chdir(scratch)
    private_tmp(scratch)
    isolate_path(scratch)
    isolation.reach(handles or {})
    torch.set_num_threads(1)
    magics.install()  # a notebook's get_ipython() (its %time lines run their code)
    trap = Trap(scratch)
    trap.install(request.get("trap", []))
    before = snapshot(rescan=True)
    # Everything before this was the sandbox's own start (namespaces, mounts, limits, the
    # snapshot), the grader's time: the import's time limit counts from here.
    wire.send(sock, {"importing": True})
    try:
        module = import_student(os.path.join(scratch, request["file"]), request["module"])
    except ForbiddenCall as exc:
        wire.send(
            sock,
            {
                "import_error": {
                    "type": "ForbiddenCall",
                    "message": str(exc),
                    "traceback": student_traceback(exc, scratch),
                }
            },
        )
        return False
    except BaseException as exc:  # SystemExit, KeyboardInterrupt and all: the student's doing
        wire.send(sock, {"import_error": describe_exception(exc, scratch)})
        return False
    _flush()
    wire.send(sock, {"ready": True, "tampered": tampered(before)})
    context = probes.Context(module=module, trap=trap, scratch=scratch, before=before)
    try:
        reserve = [bytearray(RESERVE)]
    except MemoryError:  # a limit this tight leaves none to keep: serve without (never re-made)
        reserve = [bytearray()]
    while True:
        try:
            header, blob = wire.recv(sock)
        except (EOFError, OSError, wire.WireError):
            return False
        except MemoryError:  # too little left to read the request: the worker ends (EXIT_MEMORY)
            reserve.clear()
            raise
        if pristine is not None and header.get("op") == "end":
            return _end(sock, pristine, trap, before, scratch, request["module"])
        enc = wire.Encoder()
        try:
            if not reserve:  # a MemoryError spent it: a call starts only where it is back
                reserve.append(bytearray(RESERVE))
            reply = probes.handle(context, header, wire.Decoder(header, blob, states=True), enc)
        except BaseException as exc:  # anything that escaped a probe is still the student's
            error = _described(exc, scratch, reserve)  # (first: it frees the reserve)
            enc = wire.Encoder()
            reply = {"ok": False, "phase": "probe", "error": error}
        _flush()  # what the call printed is in the output file before the grader reads it
        try:  # where the next call's output starts (the student's own output, shown to them)
            reply["output_at"] = os.fstat(1).st_size
        except (OSError, TypeError, MemoryError):
            pass
        try:
            wire.send(sock, reply, enc)
        except MemoryError:  # what the student's objects hold left too little to send it
            reserve.clear()
            wire.send(sock, {"ok": False, "phase": "reply", "error": _memory_error()})
        except wire.WireError as exc:
            wire.send(
                sock,
                {
                    "ok": False,
                    "phase": "reply",
                    "error": {"type": "OutputTooLarge", "message": str(exc), "traceback": []},
                },
            )


# -- between two exercises of one submission (portable mode) ---------------------------------
#
# A portable worker between two exercises of one submission (grader.sandbox.portable).
#
# Portable mode (Windows, macOS: no fork server) may serve a submission's exercises one after
# another in one spawned worker, so that the course does not pay a Python start and torch's
# import per exercise. The student's own check is feedback (the teacher's grade comes from
# `batch` in fork mode), and the exercises of one submission are one author's code: no other
# student's work is at stake. What one exercise leaves must still not reach the next one's
# grading, so at the end of an exercise the worker:
#
# - puts back its runtime trap (the next exercise installs its own) and the global modes;
# - forgets the exercise's modules (its file and whatever it imported from its scratch copy):
#   the next exercise imports its own file afresh, under its own name, in its own scratch copy,
#   with the environment variables as the worker had them before its first exercise;
# - says whether anything is left that it cannot undo: a thread still running, a child process,
#   torch's functions or classes changed (any module or class of torch: compared with what they
#   were before the first exercise), the grader's own code in the worker changed, an import hook,
#   a trace function, a builtin replaced, a mode that cannot be set back. Any of these, or no
#   clean answer in time, and the grader replaces the worker (portable.PortableSandbox.recycle).
#
# The check runs in the student's process, so code written to fool it can: the cost is its own
# author's feedback, never another student's grade (a worker serves one submission only, and
# never after a hidden check).


def _code(value) -> bool:
    """What the next exercise's calls would run: a function, a class, a descriptor (a method,
    a property), not data (counters and caches that torch itself updates)."""
    return callable(value) or hasattr(type(value), "__get__")


def _entries(space) -> tuple[tuple, tuple, int]:
    keys = tuple(k for k, v in list(space.items()) if _code(v))
    return keys, tuple(map(id, map(space.get, keys))), len(space)


def _torch_dicts() -> list[tuple[str, object, tuple, tuple, int]]:
    """(name, namespace, the keys of its code, the identities of their values, its size) for
    every torch module loaded and every class defined in one: the code a student's code could
    replace, or add to."""
    with warnings.catch_warnings():  # a deprecated object of torch's may warn when looked at
        warnings.simplefilter("ignore")
        return _torch_namespaces()


def _torch_namespaces() -> list[tuple[str, object, tuple, tuple, int]]:
    out = []
    seen: set[int] = set()
    for name, module in list(sys.modules.items()):
        if not (name == "torch" or name.startswith("torch.")):
            continue
        if not isinstance(module, types.ModuleType):
            continue
        space = vars(module)
        out.append((name, space, *_entries(space)))
        for value in list(space.values()):
            if (
                isinstance(value, type)
                and id(value) not in seen
                and str(getattr(value, "__module__", "")).startswith("torch")
            ):
                seen.add(id(value))
                out.append((f"{name}.{value.__name__}", vars(value), *_entries(vars(value))))
    return out


class Pristine:
    """The worker as it was before its first exercise (taken in portable.child_main, after
    torch and the preload are imported, before any student code)."""

    def __init__(self):
        self.torch = _torch_dicts()
        self.modes = probes.modes()
        self.environ = dict(os.environ)
        self.meta_path = list(sys.meta_path)
        self.path_hooks = list(sys.path_hooks)
        self.builtins = dict(vars(builtins))
        self.modules = set(sys.modules)

    def torch_changed(self) -> list[str]:
        """The torch modules and classes whose code of then is no longer the same objects, or
        that have code added (data added is not a change: torch adds modules and caches
        lazily), each as namespace.attribute."""
        out = []
        for name, space, keys, ids, size in self.torch:
            if tuple(map(id, map(space.get, keys))) != ids or len(space) != size:
                out += [f"{name}.{k}" for k in _not_torch_own(space, keys, ids)]
        return out


def _not_torch_own(space, keys, ids) -> list[str]:
    """The attributes changed or added that are not torch's own doing: data added is not a
    change, nor an optimizer class's step, which torch wraps once per class when the first
    optimizer of it is built (Optimizer._patch_step_function)."""
    out = []
    for key, before in zip(keys, ids):
        value = space.get(key)
        if id(value) != before and not (key == "step" and getattr(value, "hooked", False)):
            out.append(key)
    known = set(keys)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out += [k for k, v in list(space.items()) if k not in known and _code(v)]
    return out


def leftovers(pristine: Pristine, trap, before: dict) -> list[str]:
    """What the exercise just served left that the worker cannot undo (empty: it may serve the
    submission's next exercise). Undoes what it can: the trap, the global modes. `before`: the
    exercise's own snapshot of the grader's code (trap.snapshot, taken with its trap in)."""
    why = []
    if tampered(before):
        why.append("grader code or a guarded torch function replaced")
    if not trap.uninstall():
        why.append("a trapped torch function replaced")
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if others:
        why.append(f"{len(others)} thread(s) left running")
    if children():
        why.append("a child process left running")
    changed = probes.restore_modes(pristine.modes)
    if probes.modes() != pristine.modes:
        why.append(f"a global mode that cannot be set back ({', '.join(changed)})")
    changed = pristine.torch_changed()
    if changed:
        why.append(f"torch changed ({', '.join(changed[:3])})")
    if sys.meta_path != pristine.meta_path or sys.path_hooks != pristine.path_hooks:
        why.append("an import hook added")
    if sys.gettrace() is not None or sys.getprofile() is not None:
        why.append("a trace or profile function set")
    now = vars(builtins)
    if any(now.get(k) is not v for k, v in pristine.builtins.items()):
        why.append("a builtin replaced")
    return why


def forget(pristine: Pristine, scratch: str, module: str) -> None:
    """Forget the exercise: its module, any module imported from its scratch copy (a helper
    file beside it), their cached lines, and the environment variables it set."""
    root = os.path.join(os.path.realpath(scratch), "")
    for name, mod in list(sys.modules.items()):
        if name in pristine.modules and name != module:
            continue
        where = getattr(mod, "__file__", None)
        if name == module or (isinstance(where, str) and os.path.realpath(where).startswith(root)):
            del sys.modules[name]
    linecache.clearcache()
    importlib.invalidate_caches()
    os.environ.clear()
    os.environ.update(pristine.environ)


def children() -> bool:
    """Whether this process has a child process (alive or not yet reaped). Where the platform
    gives no way to tell, True: the worker is then not reused."""
    pid = os.getpid()
    if os.path.isdir("/proc/self/task"):
        try:
            for tid in os.listdir("/proc/self/task"):
                with open(f"/proc/self/task/{tid}/children") as f:
                    if f.read().strip():
                        return True
            return False
        except OSError:
            pass
        try:  # a kernel without the children files: every process's parent
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        with open(f"/proc/{entry}/stat") as f:
                            stat = f.read()
                    except OSError:
                        continue
                    if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                        return True
            return False
        except (OSError, ValueError, IndexError):
            return True
    if os.name == "nt":
        return _windows_children(pid)
    try:  # macOS and other systems with pgrep
        found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return True
    return bool(found.stdout.strip()) or found.returncode not in (0, 1)


def _windows_children(pid: int) -> bool:  # pragma: no cover - Windows only
    """A Toolhelp snapshot of the processes, for any whose parent is this one."""
    try:
        import ctypes
        from ctypes import wintypes

        class Entry(ctypes.Structure):
            _fields_ = [
                ("dwSize", wintypes.DWORD),
                ("cntUsage", wintypes.DWORD),
                ("th32ProcessID", wintypes.DWORD),
                ("th32DefaultHeapID", ctypes.c_void_p),
                ("th32ModuleID", wintypes.DWORD),
                ("cntThreads", wintypes.DWORD),
                ("th32ParentProcessID", wintypes.DWORD),
                ("pcPriClassBase", ctypes.c_long),
                ("dwFlags", wintypes.DWORD),
                ("szExeFile", ctypes.c_char * 260),
            ]

        kernel = ctypes.windll.kernel32
        kernel.CreateToolhelp32Snapshot.restype = wintypes.HANDLE
        snap = kernel.CreateToolhelp32Snapshot(0x2, 0)  # TH32CS_SNAPPROCESS
        if snap in (None, wintypes.HANDLE(-1).value):
            return True
        try:
            entry = Entry()
            entry.dwSize = ctypes.sizeof(Entry)
            ok = kernel.Process32First(snap, ctypes.byref(entry))
            while ok:
                if entry.th32ParentProcessID == pid and entry.th32ProcessID != pid:
                    return True
                ok = kernel.Process32Next(snap, ctypes.byref(entry))
            return False
        finally:
            kernel.CloseHandle(snap)
    except Exception:
        return True

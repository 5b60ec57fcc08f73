"""A portable worker between two exercises of one submission (grader.sandbox.portable).

Portable mode (Windows, macOS: no fork server) may serve a submission's exercises one after
another in one spawned worker, so that the course does not pay a Python start and torch's
import per exercise. The student's own check is feedback (the teacher's grade comes from
`batch` in fork mode), and the exercises of one submission are one author's code: no other
student's work is at stake. What one exercise leaves must still not reach the next one's
grading, so at the end of an exercise the worker:

- puts back its runtime trap (the next exercise installs its own) and the global modes;
- forgets the exercise's modules (its file and whatever it imported from its scratch copy):
  the next exercise imports its own file afresh, under its own name, in its own scratch copy,
  with the environment variables as the worker had them before its first exercise;
- says whether anything is left that it cannot undo: a thread still running, a child process,
  torch's functions or classes changed (any module or class of torch: compared with what they
  were before the first exercise), the grader's own code in the worker changed, an import hook,
  a trace function, a builtin replaced, a mode that cannot be set back. Any of these, or no
  clean answer in time, and the grader replaces the worker (portable.PortableSandbox.recycle).

The check runs in the student's process, so code written to fool it can: the cost is its own
author's feedback, never another student's grade (a worker serves one submission only, and
never after a hidden check).
"""

from __future__ import annotations

import builtins
import importlib
import linecache
import os
import subprocess
import sys
import threading
import types
import warnings

from grader.sandbox import probes
from grader.sandbox.trap import tampered


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

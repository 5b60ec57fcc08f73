"""The worker: imports one student file and answers probe requests with raw observations.

Runs in a process forked from the template, with the limits already applied. Everything here is
untrusted once the student's file is imported: it only reports data (see grader.common.wire), and the
grader computes every verdict from that data.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
import tempfile

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
    may serve the submission's next exercise (grader.sandbox.reuse), True where it may."""
    from grader.sandbox import reuse

    _flush()
    try:
        why = reuse.leftovers(pristine, trap, before)
        reuse.forget(pristine, scratch, module)
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
    its first exercise (grader.sandbox.reuse.Pristine): the grader may then end the exercise
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
        reserve = [b""]
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
            reply = probes.handle(context, header, wire.Decoder(header, blob, states=True), enc)
            if not reserve:  # a MemoryError spent it: a call starts only where it is back
                reserve.append(bytearray(RESERVE))
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

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
from grader.sandbox.tracebacks import describe_exception, student_traceback
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


def serve(sock: socket.socket, request: dict, handles: dict[str, int] | None = None) -> None:
    """Import the student's file, then answer probe requests until the grader hangs up.
    handles: library folders this (dropped) user reaches only through descriptors opened while
    root (grader.sandbox.isolation.library_handles)."""
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
        return
    except BaseException as exc:  # SystemExit, KeyboardInterrupt and all: the student's doing
        wire.send(sock, {"import_error": describe_exception(exc, scratch)})
        return
    _flush()
    wire.send(sock, {"ready": True, "tampered": tampered(before)})
    context = probes.Context(module=module, trap=trap, scratch=scratch, before=before)
    while True:
        try:
            header, blob = wire.recv(sock)
        except (EOFError, OSError, wire.WireError):
            return
        enc = wire.Encoder()
        try:
            reply = probes.handle(context, header, wire.Decoder(header, blob), enc)
        except BaseException as exc:  # anything that escaped a probe is still the student's
            enc = wire.Encoder()
            reply = {"ok": False, "phase": "probe", "error": describe_exception(exc, scratch)}
        _flush()  # what the call printed is in the output file before the grader reads it
        try:  # where the next call's output starts (the student's own output, shown to them)
            reply["output_at"] = os.fstat(1).st_size
        except (OSError, TypeError):
            pass
        try:
            wire.send(sock, reply, enc)
        except wire.WireError as exc:
            wire.send(
                sock,
                {
                    "ok": False,
                    "phase": "reply",
                    "error": {"type": "OutputTooLarge", "message": str(exc), "traceback": []},
                },
            )

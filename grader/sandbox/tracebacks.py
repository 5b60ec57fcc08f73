"""What a worker says of an exception in the student's code: its type, its message and only the
frames of the student's own files (never the grader's or a library's)."""

from __future__ import annotations

import os
import sys
import traceback

MAX_TEXT = 2000


def student_traceback(exc: BaseException, scratch: str) -> list[str]:
    """Only the frames from the student's own files, as short text lines."""
    lines = []
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith(scratch):
            name = os.path.relpath(frame.filename, scratch)
            lines.append(f'File "{name}", line {frame.lineno}, in {frame.name}')
            if frame.line:
                lines.append(f"    {frame.line.strip()}")
    if isinstance(exc, SyntaxError) and exc.filename and exc.filename.startswith(scratch):
        lines.append(f'File "{os.path.relpath(exc.filename, scratch)}", line {exc.lineno}')
        if exc.text:
            lines.append(f"    {exc.text.rstrip()}")
    return lines[-40:]


def describe_exception(exc: BaseException, scratch: str) -> dict:
    try:
        message = str(exc)
    except BaseException:  # a hostile __str__
        message = "<unprintable>"
    described = {
        "type": type(exc).__name__[:100],
        "message": message[:MAX_TEXT],
        "traceback": student_traceback(exc, scratch),
    }
    if isinstance(exc, MemoryError):
        described.update(memory_peak())
    return described


def memory_peak() -> dict:
    """{"peak_bytes": the most memory this process has held}, the size a MemoryError was met
    at; {} where the platform does not say (no getrusage)."""
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except (ImportError, OSError, ValueError, MemoryError):
        return {}
    return {"peak_bytes": int(peak) * (1 if sys.platform == "darwin" else 1024)}

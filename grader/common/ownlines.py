"""What a student's code printed, cut to the student's own lines: the warnings and tracebacks
that Python and torch write there (anomaly mode's "Traceback of forward call", a UserWarning)
keep only the frames of the student's files, named relative to their folder; frames of the
grader, its plugins, torch or a temporary folder go, as does torch's "(Triggered internally at
....cpp)", and a warning said again is shown once. Anything else the code printed stays as it
was, except that a path outside the student's folder is shortened to its file name.
"""

from __future__ import annotations

import os
import re

_FRAME = re.compile(r'^(?P<indent>\s*)File "(?P<path>[^"]+)", line (?P<line>\d+)(?P<rest>.*)$')
_WARNING = re.compile(
    r"^(?P<path>(?:[A-Za-z]:)?[^:\s][^:]*\.py):(?P<line>\d+): "
    r"(?P<what>[A-Za-z_][\w.]*(?:Warning|Error)\b.*)$"
)
_TRIGGERED = re.compile(r"^\s*\(Triggered internally at .*\)\s*$")
_TRIGGERED_TAIL = re.compile(r"\s*\(Triggered internally at [^()]*\)")
"""The same note at the end of a line of the warning's own text (a one-line warning)."""
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[/\\][^\s\"'():,]+)+")


def _own(path: str, scratch: str) -> str | None:
    """The path relative to the student's folder, or None when it is not one of their files."""
    if not scratch:
        return None
    full = os.path.normpath(path)
    root = os.path.normpath(scratch)
    if full == root or not full.startswith(root + os.sep):
        return None
    rel = os.path.relpath(full, root)
    return None if rel.startswith(".") else rel


def _shorten(line: str, scratch: str) -> str:
    """Paths in a line: the student's relative to their folder, any other its file name."""

    def short(m: re.Match) -> str:
        path = m.group(0)
        own = _own(path, scratch)
        if own is not None:
            return own
        if "/" not in path.strip("/\\") and "\\" not in path.strip("/\\"):
            return path  # one word after a slash ("and/or", "/s"): not a path
        return os.path.basename(path.rstrip("/\\")) or path

    return _PATH.sub(short, line)


def _source(lines: list[str], i: int, indent: int) -> bool:
    """Whether lines[i] is the source line printed under a frame or a warning header."""
    if i >= len(lines):
        return False
    line = lines[i]
    stripped = line.lstrip()
    return (
        bool(stripped)
        and len(line) - len(stripped) > indent
        and not _FRAME.match(line)
        and not _TRIGGERED.match(line)
    )


def output(text: str, scratch: str) -> str:
    """text (a worker's stdout and stderr) with only the student's frames: see the module."""
    lines = text.split("\n")
    out: list[str] = []
    said: set[str] = set()
    skipping = False  # inside a warning already said: its lines go too
    mine = False  # the warning being read was raised at a line of the student's
    i = 0
    while i < len(lines):
        line = lines[i]
        warning = _WARNING.match(line)
        frame = _FRAME.match(line)
        if warning:
            own = _own(warning["path"], scratch)
            mine = own is not None
            what = _TRIGGERED_TAIL.sub("", warning["what"])
            skipping = what in said
            said.add(what)
            i += 1
            source = _source(lines, i, 0)
            if not skipping:
                out.append(f"{own}:{warning['line']}: {what}" if own else what)
                if source and own:
                    out.append(lines[i])
            if source:
                i += 1
            continue
        if frame:
            own = _own(frame["path"], scratch)
            i += 1
            source = _source(lines, i, len(frame["indent"]))
            if own is not None and not skipping:
                out.append(f'{frame["indent"]}File "{own}", line {frame["line"]}{frame["rest"]}')
                if source:
                    out.append(lines[i])
            if source:
                i += 1
            continue
        i += 1
        if _TRIGGERED.match(line):  # a multi-line warning's end: its source line follows
            if _source(lines, i, 0):
                if mine and not skipping:
                    out.append(lines[i])
                i += 1
            continue
        if skipping and (line.startswith((" ", "\t")) or not line.strip()):
            continue  # the rest of a warning already said (its indented lines)
        skipping = False
        out.append(_shorten(_TRIGGERED_TAIL.sub("", line), scratch))
    return "\n".join(out)

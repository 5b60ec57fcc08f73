"""Text from outside the grader made safe where it enters: names, messages, source lines.

Anything a submission controls (folder and file names, exception messages, source lines, the
worker's replies) may hold lone surrogates (a name that is not UTF-8, a hostile __str__),
terminal escapes (a fake green "Total: 61/61"), newlines (a forged CI log line) or megabytes of
text. clean() keeps printable text and newlines/tabs; name() keeps one line. scrub() applies
clean() to every string of a result before it is reported or written, and atomic_write() writes
a file in one piece, so one submission can never empty or corrupt the class's outputs.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import tempfile
from pathlib import Path

MAX_TEXT = 20_000
"""Characters any one reported string may have (a traceback line, a message)."""
MAX_NAME = 200

# C0 controls but tab and newline, DEL, C1 controls, lone surrogates, and the bidirectional
# overrides that make text read differently from how it is stored.
_BAD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_BAD_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def _replace(match: re.Match) -> str:
    ch = match.group(0)
    if "\ud800" <= ch <= "\udfff":
        code = ord(ch)
        # a byte smuggled in by surrogateescape (a name that is not UTF-8): show it as \xNN
        return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "\ufffd"
    if ch in "\r\n\t":
        return " "
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


FILE_NAME = re.compile(r"^\w[\w.-]{0,99}$")
"""A submission's name used as it is for a file of its own (OUT/feedback/<name>.md)."""
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}
"""Names Windows refuses for a file, whatever the extension."""


FILE_NAME_BYTES = 100
"""The longest name (in UTF-8 bytes) used as it is for a file; file systems cap a name at 255
bytes (some at 143), and a name gets a suffix (`.md`) and a temporary file's around it."""
_CUT_BYTES = 60


def file_name(name: str) -> str:
    """A file name for one submission's own output: the name itself when it is a plain one
    (letters, digits, `_`, `.`, `-`; at most FILE_NAME_BYTES bytes), else its safe characters,
    cut to 60 bytes, and 12 hex digits of its hash, so that no name (255 bytes, `=HYPERLINK(...)`,
    a Windows device name, dots only) can fail to be written or land on another submission's
    file. file_names() also keeps names apart that a file system would take as one."""
    size = len(name.encode("utf-8", "surrogatepass"))
    if (
        FILE_NAME.match(name)
        and size <= FILE_NAME_BYTES
        and not name.endswith(".")
        and name.split(".")[0].lower() not in _RESERVED
    ):
        return name
    return _hashed(name)


def _hashed(name: str) -> str:
    import hashlib

    safe = re.sub(r"[^\w.-]", "_", name)
    while len(safe.encode("utf-8")) > _CUT_BYTES:
        safe = safe[:-1]
    safe = safe.lstrip(".-").rstrip(".") or "submission"
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe}-{digest}"


def ascii_file_name(name: str) -> str:
    """An ASCII-only file name for a name a file system refused in file_name()'s form (one
    that takes no non-ASCII names, or fewer bytes)."""
    return "submission-" + _hashed(name).rsplit("-", 1)[1]


REFUSED_NAME = (errno.ENAMETOOLONG, errno.EILSEQ, errno.EINVAL)
"""How a file system refuses a file's name (not the disk, not the permissions)."""


def file_names(names) -> dict[str, str]:
    """file_name() of each name, told apart where two would be one file: the same name in
    another case (one file on macOS and Windows) or a name written like another's safe one.
    Stable for the same names, whatever their order."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in sorted(set(names)):
        made = file_name(name)
        if made.casefold() in used:
            made = _hashed(name)
        base, n = made, 1
        while made.casefold() in used:
            n += 1
            made = f"{base}-{n}"
        used.add(made.casefold())
        out[name] = made
    return out


def clean(text, limit: int = MAX_TEXT) -> str:
    """Printable text: control and escape characters shown as \\xNN, lone surrogates replaced,
    newlines and tabs kept, at most `limit` characters."""
    if not isinstance(text, str):
        text = str(text)
    elif len(text) <= limit and text.isascii() and text.isprintable():
        return text  # the common case, with nothing to change (no control character, no \r)
    if len(text) > limit:
        text = text[:limit] + " [...]"
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _BAD.sub(_replace, text)


def html(text, limit: int = MAX_TEXT) -> str:
    """Untrusted text as HTML: printable (clean), capped and escaped, quotes included (every
    page of the class view writes names and messages through it)."""
    import html as _html

    return _html.escape(clean(str(text), limit), quote=True)


def name(text, limit: int = MAX_NAME) -> str:
    """One line: clean() with newlines, tabs and carriage returns shown as escapes too."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > limit:
        text = text[:limit] + "..."
    return _BAD_LINE.sub(_line_replace, text)


def _line_replace(match: re.Match) -> str:
    ch = match.group(0)
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch) or _replace(match)


def scrub(obj, depth: int = 0):
    """A copy of a result (dataclasses, lists, tuples, dicts) with every string clean()ed."""
    if isinstance(obj, str):
        return clean(obj)
    if depth > 64:
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {
            f.name: scrub(getattr(obj, f.name), depth + 1)
            for f in dataclasses.fields(obj)
            if f.init
        }
        return dataclasses.replace(obj, **changes)
    if isinstance(obj, list):
        return [scrub(v, depth + 1) for v in obj]
    if isinstance(obj, tuple):
        return tuple(scrub(v, depth + 1) for v in obj)
    if isinstance(obj, dict):
        return {scrub(k, depth + 1): scrub(v, depth + 1) for k, v in obj.items()}
    return obj


def atomic_write(path: Path, text: str, newline: str | None = None) -> None:
    """Write the whole file or nothing: a temporary file beside it, then a rename. Characters
    that cannot be encoded (a stray surrogate) become escapes instead of failing the write."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with open(fd, "w", encoding="utf-8", errors="backslashreplace", newline=newline) as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

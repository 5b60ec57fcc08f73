"""Finding an exercise's file in a submission directory, and the scratch copy a worker sees.

A submission is data until it is inside a sandbox, and the grader runs as whoever started it
(root in some CI): only regular files inside the submission folder count. Links (to the answer
key, a classmate's file, /dev/zero), devices, FIFOs and folders named like a file are never
followed or opened; files are opened with O_NOFOLLOW|O_NONBLOCK, checked with fstat, and read
with a byte cap. Folders are walked without recursion, to a bounded depth and entry count.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import tokenize
import unicodedata
from pathlib import Path

MAX_COPY_FILES = 200
MAX_COPY_BYTES = 5 * 2**20
MAX_SOURCE_BYTES = 1 * 2**20
"""The largest exercise file the grader reads (a real answer is a few kB)."""
MAX_DEPTH = 32
"""Folder levels searched below a submission (zips nest a few)."""
MAX_ENTRIES = 20_000
"""Entries looked at per submission before the search stops."""
SKIP_DIRS = {"__pycache__", ".git", ".venv", "venv", "node_modules"}
RELEASE_EXERCISES = "exercises"
"""Where a release copy keeps the students' files (grader/release.py writes that layout)."""

PARSE_MEMORY = 1 * 2**30
PARSE_SECONDS = 20


class UnsafeFile(OSError):
    """A path that is not a plain file inside the submission, or is too large."""


def walk(directory: Path):
    """(relative parts, os.DirEntry) of every entry below directory, breadth first, without
    following links, at most MAX_DEPTH levels and MAX_ENTRIES entries."""
    queue = [((), os.fspath(directory))]
    seen = 0
    while queue:
        parts, folder = queue.pop(0)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                return
            rel = parts + (entry.name,)
            yield rel, entry
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if (
                is_dir
                and len(rel) < MAX_DEPTH
                and not (entry.name in SKIP_DIRS or entry.name.startswith("."))
            ):
                queue.append((rel, entry.path))


def locate(directory: Path, filename: str) -> list[Path]:
    """Every regular file of that name in the submission, flat or nested (zips nest them).

    A submission folder that is itself a link is not followed (in a class folder it could
    point anywhere); links, devices, FIFOs and folders named like the file are ignored."""
    directory = Path(directory)
    if directory.is_symlink() or not directory.is_dir():
        return []
    found = []
    for rel, entry in walk(directory):
        if entry.name != filename:
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                found.append(directory.joinpath(*rel))
        except OSError:
            continue
    return found


def find(directory: Path, filename: str) -> list[Path]:
    """The file(s) graded for an exercise. A release copy (a student's repository, with an
    `exercises/` folder) is searched there first, as the student's own `python -m grader`
    does: its grader package and anything else in the repository are never graded."""
    inner = Path(directory) / RELEASE_EXERCISES
    if inner.is_dir() and not inner.is_symlink():
        found = locate(inner, filename)
        if found:
            return found
    return locate(directory, filename)


def read_capped(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of a regular file, never following a link, at most `limit` bytes (a larger
    file raises UnsafeFile before anything is read)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeFile(f"{Path(path).name} is a link; submit the file itself") from None
        raise exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFile(f"{Path(path).name} is not a regular file")
        if info.st_size > limit:
            raise UnsafeFile(f"{Path(path).name} is {info.st_size} bytes; the limit is {limit}")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(65536, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UnsafeFile(f"{Path(path).name} is larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


class SourceError(Exception):
    """A file Python cannot decode: where, with which encoding, and why."""

    def __init__(self, line: int | None, encoding: str | None, reason: str):
        super().__init__(reason)
        self.line, self.encoding, self.reason = line, encoding, reason


def decode_source(data: bytes) -> str:
    """Source bytes decoded as Python decodes a file it imports (tokenize.open): a UTF-8 BOM,
    a `# -*- coding: ... -*-` line, else UTF-8; newlines normalised. Raises SourceError with
    the line that cannot be decoded."""
    lines = iter(data.splitlines(keepends=True))
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError as exc:  # an unknown codec, a cookie that contradicts a BOM, ...
        if "unknown encoding" in exc.msg or "encoding problem" in exc.msg:
            raise SourceError(_cookie_line(data), None, exc.msg) from None
        encoding = "utf-8"  # no usable cookie, and the first lines are not UTF-8: find where
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise SourceError(data[: exc.start].count(b"\n") + 1, encoding, exc.reason) from None
    except LookupError as exc:
        raise SourceError(_cookie_line(data), None, str(exc)) from None
    if text.startswith("\ufeff"):  # utf-8-sig strips it, a cookie of utf-8 does not
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _cookie_line(data: bytes) -> int | None:
    for number, line in enumerate(data.removeprefix(b"\xef\xbb\xbf").splitlines()[:2], start=1):
        if re.match(rb"^[ \t\f]*#.*?coding[:=]", line):
            return number
    return None


def _normal(name: str) -> str:
    """A file name as a tired person means it: any case, copies and extra extensions removed,
    spaces and hyphens as underscores (`My-Exercise (1).py.txt` -> `my_exercise`)."""
    name = name.lower()
    name = re.sub(r"(\.(txt|py|ipynb|bak|orig|copy))+$", "", name)
    name = re.sub(r"\s*\(\d+\)|\s*-\s*(copy|salinan)(\s*\d+)?|^(copy of|salinan)\s+", "", name)
    return re.sub(r"[\s\-.]+", "_", name.strip()).strip("_")


NEAR_SCAN = 5000
"""Entries looked at when searching for a near-miss name (a huge folder is not walked whole)."""


def near_misses(directory: Path, filename: str, limit: int = 5) -> list[str]:
    """Files in the submission whose names look like a slip for `filename` (another case,
    a space or hyphen, a browser's " (1)", a `.py.txt`, a letter or two off), relative to
    the directory; the exact name itself is never among them."""
    directory, want = Path(directory), _normal(filename)
    if directory.is_symlink() or not directory.is_dir():
        return []
    found = []
    for seen, (rel, entry) in enumerate(walk(directory), start=1):
        if seen > NEAR_SCAN or len(found) >= limit:
            break
        name = entry.name
        if name == filename or name in SKIP_DIRS or name.startswith("."):
            continue
        got = _normal(name)
        if got == want or (
            len(want) > 4 and difflib.SequenceMatcher(None, got, want).ratio() >= 0.85
        ):
            found.append(os.path.join(*rel))
    return found


def scratch_copy(file: Path, source: bytes | None = None, name: str | None = None) -> Path:
    """A fresh directory with the student's file and the regular .py files beside it that it
    names (capped; see beside).

    source: the bytes of `file` as already read and checked (so the copy is what was checked);
    name: the name it gets there (a notebook's code goes in as `<id>.py`)."""
    scratch = Path(tempfile.mkdtemp(prefix="grader-"))
    name = name or file.name
    source = source if source is not None else read_capped(file)
    (scratch / name).write_bytes(source)
    for other, data in beside(file, name, len(source), source=source):
        (scratch / other).write_bytes(data)
    return scratch


def beside(
    file: Path, name: str | None = None, used: int = 0, source: bytes | None = None
) -> list[tuple[str, bytes]]:
    """The regular .py files beside `file` that its scratch copy gets, by name: at most
    MAX_COPY_FILES files in all and MAX_COPY_BYTES with the `used` bytes of the file itself.
    With `source` (the code the copy runs), only those it names (see named): a helper module
    it imports comes along, the rest of a folder (the course's other exercises, in a flat
    folder) does not, so a file's verdict depends on its own bytes and the files it names
    (grader.grading.verdicts keys it by them; without `source`, by all of them)."""
    name = name or file.name
    try:
        with os.scandir(file.parent) as it:
            siblings = sorted(
                (e for e in it if e.name.endswith(".py") and e.name not in (file.name, name)),
                key=lambda e: e.name,
            )
    except OSError:
        siblings = []
    out: list[tuple[str, bytes]] = []
    total = used
    for entry in siblings:
        if len(out) + 1 >= MAX_COPY_FILES:
            break
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            data = read_capped(Path(entry.path), MAX_COPY_BYTES - total)
        except OSError:
            continue  # a link, a device, too large: the worker does not get it
        out.append((entry.name, data))
        total += len(data)
    return out if source is None else named(source, out)


def named(source: bytes, files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The files whose module name (`helper` for helper.py) the source's text holds, or the
    text of a file already taken does (a helper that imports another). A name built at run
    time (`__import__("hel" + "per")`) finds no file: the copy holds only what is named, so
    nothing else can be read there."""
    left = dict(files)
    taken: set[str] = set()
    texts = [_text(source)]
    while texts and left:
        text = texts.pop()
        for other in [n for n in left if n[: -len(".py")] in text]:
            taken.add(other)
            texts.append(_text(left.pop(other)))
    return [(n, data) for n, data in files if n in taken]


def _text(data: bytes) -> str:
    """The text in which a source spells names: decoded as Python decodes it and normalised as
    Python normalises identifiers (NFKC); bytes that do not decode, as Latin-1."""
    try:
        text = decode_source(data)
    except SourceError:
        text = data.decode("latin-1")
    return unicodedata.normalize("NFKC", text)


def remove(scratch: Path) -> None:
    shutil.rmtree(scratch, ignore_errors=True)


_PARSER = (
    "import ast, json, resource, sys\n"
    "m, s = int(sys.argv[1]), int(sys.argv[2])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (m, m))\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (s, s + 1))\n"
    "src = sys.stdin.buffer.read()\n"
    "try:\n"
    "    ast.parse(src)\n"
    "except SyntaxError:\n"
    "    pass\n"
    "sys.stdout.write('ok')\n"
)


class TooComplex(ValueError):
    """Source that the parser cannot handle within its limits."""


def parse(source: str, filename: str) -> ast.Module:
    """ast.parse of untrusted source, after a trial parse in a child process with memory and
    CPU limits: a pathological file (deep nesting, megabytes of expressions) costs the child,
    and is then refused, instead of exhausting the grader."""
    data = source.encode("utf-8", "surrogatepass")
    if len(data) > 4096:  # small files cannot hurt; spare them the child process
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", "-c", _PARSER, str(PARSE_MEMORY), str(PARSE_SECONDS)],
                input=data,
                capture_output=True,
                timeout=PARSE_SECONDS + 10,
                env={},
            )
            ok = done.returncode == 0 and done.stdout == b"ok"
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if not ok:
            raise TooComplex(f"{filename} is too large or too deeply nested to parse")
    try:
        return ast.parse(source, filename=filename)
    except (RecursionError, MemoryError):
        raise TooComplex(f"{filename} is too deeply nested to parse") from None

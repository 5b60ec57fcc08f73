"""A student's git repository read as data: its objects parsed, nothing in it obeyed or run.

No git command runs here. The repository is opened by its `.git` folder only (a `.git` file,
such as `gitdir: ../classmate/.git`, or a link is refused), and only three kinds of thing in it
are read: HEAD and the branch it names (loose or packed-refs), the shallow list, and objects
(loose, or in packs found by their .idx). Config, hooks, attributes (and so filters, textconv,
ident, eol), replace refs, grafts, commit-graph and alternates are never opened. No link inside
`.git` is followed. dulwich parses what was read (pack indexes, deltas, commits, trees); the
reads themselves are ours, each bounded: a pack object's size is read from its header (and a
delta's from its own) before anything is inflated, and no object larger than OBJECT_BYTES, nor
a delta against one, is inflated. Anything that fails raises Unreadable with the reason.
"""

from __future__ import annotations

import mmap
import os
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path

from dulwich.object_format import SHA1
from dulwich.pack import apply_delta, load_pack_index
from dulwich.refs import check_ref_format

from grader.common import safetext
from grader.submissions.notebook import MAX_NOTEBOOK_BYTES

OBJECT_BYTES = MAX_NOTEBOOK_BYTES
"""The largest object (or delta, or delta base) ever inflated."""
MAX_CHAIN = 1_000
"""Deltas in one chain (git writes at most 50 by default)."""
SMALL_FILE = 2**20
"""HEAD, a loose ref, the shallow list."""
PACKED_REFS_BYTES = 16 * 2**20
CHUNK = 64 * 1024
COMMIT, TREE, BLOB = 1, 2, 3
OFS_DELTA, REF_DELTA = 6, 7
LOOSE_TYPES = {b"commit": COMMIT, b"tree": TREE, b"blob": BLOB, b"tag": 4}


class Unreadable(OSError):
    """The repository cannot be read; str() says why."""


def shown(name: bytes) -> str:
    return safetext.name(name.decode("utf-8", "backslashreplace"), 80)


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """A delta header's size (7 bits a byte, least significant first) and the index after."""
    value = shift = 0
    while True:
        c = data[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return value, i


def inflate(buf, start: int, size: int, exact: bool = True) -> bytes:
    """`size` bytes (exact: the whole stream, which must be that long; else at most its first
    `size`) of the zlib stream at buf[start:], fed in chunks, never more output than asked."""
    d = zlib.decompressobj()
    out, got, pos, end = [], 0, start, len(buf)
    data = b""
    while True:
        if not data:
            if pos >= end:
                raise Unreadable("an object is cut short")
            data = bytes(buf[pos : pos + CHUNK])
            pos += len(data)
        part = d.decompress(data, size + 1 - got)
        got += len(part)
        out.append(part)
        data = d.unconsumed_tail
        if got > size:
            if not exact:
                return b"".join(out)[:size]
            raise Unreadable("an object is longer than its header says")
        if d.eof:
            break
    if exact and got != size:
        raise Unreadable("an object is shorter than its header says")
    return b"".join(out)


@dataclass(frozen=True)
class _Step:
    """An object as stored: `size` bytes of zlib data at buf[start:] (a loose one's header
    first: `skip` bytes), or a delta giving `target` bytes."""

    buf: object
    start: int
    size: int
    skip: int = 0
    target: int | None = None

    @property
    def size_out(self) -> int:
        return self.size if self.target is None else self.target


class _Pack:
    def __init__(self, idx: str, pack: str):
        self.index = load_pack_index(idx, SHA1)
        fd = os.open(pack, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise Unreadable(f"{os.path.basename(pack)} is not a regular file")
            self.data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        finally:
            os.close(fd)
        if self.data[:4] != b"PACK":
            raise Unreadable(f"{os.path.basename(pack)} is not a pack")

    def header(self, offset: int) -> tuple[int, int, int, int | bytes | None]:
        """(type, size, where its zlib data starts, its base: an offset or a sha, or None)."""
        buf = self.data
        c = buf[offset]
        kind, size, shift, i = (c >> 4) & 7, c & 15, 4, offset + 1
        while c & 0x80:
            c = buf[i]
            i += 1
            size |= (c & 0x7F) << shift
            shift += 7
        base: int | bytes | None = None
        if kind == OFS_DELTA:
            c = buf[i]
            i += 1
            back = c & 0x7F
            while c & 0x80:
                c = buf[i]
                i += 1
                back = ((back + 1) << 7) | (c & 0x7F)
            base = offset - back
            if not 12 <= base < offset:
                raise Unreadable("a delta names a base outside its pack")
        elif kind == REF_DELTA:
            base = bytes(buf[i : i + 20])
            i += 20
        return kind, size, i, base

    def close(self) -> None:
        self.data.close()
        self.index.close()


class Store:
    """A repository's refs and objects, opened by its `.git` folder (see the module's
    docstring)."""

    def __init__(self, folder: Path):
        git = Path(folder) / ".git"
        try:
            mode = os.lstat(git).st_mode
        except OSError:
            raise Unreadable("it has no .git folder") from None
        if stat.S_ISLNK(mode):
            raise Unreadable(".git is a link; a repository is read from its own .git folder only")
        if not stat.S_ISDIR(mode):
            raise Unreadable(
                ".git is a file (a `gitdir:` line naming another repository?); a repository "
                "is read from its own .git folder only"
            )
        self.git = os.fspath(git)
        self._folders: set[str] = set()
        self._packs: list[_Pack] | None = None

    # -- files inside .git, never through a link ----------------------------------------------
    def _path(self, *parts: str) -> str:
        path = self.git
        for part in parts[:-1]:
            path = os.path.join(path, part)
            if path not in self._folders:
                if not stat.S_ISDIR(os.lstat(path).st_mode):
                    raise Unreadable(f".git/{'/'.join(parts)}: a link or file on the way")
                self._folders.add(path)
        return os.path.join(path, parts[-1])

    def _read_file(self, limit: int, *parts: str, mapped: bool = False):
        """A regular file's bytes (mapped: an mmap of them), None where there is none; a link,
        or more than limit bytes, is Unreadable."""
        try:
            fd = os.open(self._path(*parts), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise Unreadable(f".git/{'/'.join(parts)}: {error.strerror}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                raise Unreadable(f".git/{'/'.join(parts)} is not a small regular file")
            if mapped:
                if not info.st_size:
                    raise Unreadable(f".git/{'/'.join(parts)} is empty")
                return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
            return os.read(fd, info.st_size) if info.st_size else b""
        finally:
            os.close(fd)

    def close(self) -> None:
        for pack in self._packs or []:
            pack.close()
        self._packs = []

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- refs ---------------------------------------------------------------------------------
    def head(self) -> str | None:
        """The commit HEAD names (following its branch), or None on an unborn branch."""
        text = self._read_file(SMALL_FILE, "HEAD")
        for _ in range(5):
            if text is None:
                return None
            line = text.strip()
            if not line.startswith(b"ref:"):
                return self._sha(line, "HEAD")
            name = line[4:].strip()
            if not name.startswith(b"refs/heads/") or not check_ref_format(name):
                raise Unreadable(f"HEAD names {shown(name)}, which is no branch")
            text = self._read_file(SMALL_FILE, *name.decode("ascii").split("/"))
            if text is None:
                return self._packed(name)
        raise Unreadable("HEAD's branches name each other")

    def _packed(self, name: bytes) -> str | None:
        text = self._read_file(PACKED_REFS_BYTES, "packed-refs") or b""
        for line in text.splitlines():
            sha, _, ref = line.partition(b" ")
            if ref.strip() == name:
                return self._sha(sha, shown(name))
        return None

    @staticmethod
    def _sha(text: bytes, where: str) -> str:
        try:
            if len(text) == 40:
                return bytes.fromhex(text.decode("ascii")).hex()
        except ValueError:
            pass
        raise Unreadable(f"{where} holds no commit id")

    # -- objects ------------------------------------------------------------------------------
    def packs(self) -> list[_Pack]:
        if self._packs is None:
            self._packs = []
            try:
                names = sorted(os.listdir(os.path.dirname(self._path("objects", "pack", "-"))))
            except FileNotFoundError:
                names = []
            for name in names:
                if name.endswith(".idx") and name[:-4] + ".pack" in names:
                    idx = self._path("objects", "pack", name)
                    if not stat.S_ISREG(os.lstat(idx).st_mode):
                        raise Unreadable(f".git/objects/pack/{name} is not a regular file")
                    self._packs.append(_Pack(idx, idx[:-4] + ".pack"))
        return self._packs

    def _chain(self, sha: str) -> tuple[int, list[_Step]]:
        """The object's type, and the steps from it to its base (the last), each checked
        against OBJECT_BYTES and MAX_CHAIN before anything large is inflated."""
        steps: list[_Step] = []
        where: tuple[_Pack, int] | None = None
        for _ in range(MAX_CHAIN):
            where = where or self._find(sha)
            if where is None:
                return self._loose(sha, steps)
            pack, offset = where
            kind, size, start, base = pack.header(offset)
            if size > OBJECT_BYTES and (steps or kind in (OFS_DELTA, REF_DELTA)):
                raise Unreadable(f"object {sha[:12]}: a delta or base of {size} bytes")
            if kind not in (OFS_DELTA, REF_DELTA):
                steps.append(_Step(pack.data, start, size))
                return kind, steps
            head = inflate(pack.data, start, min(size, 32), exact=False)
            source, i = _varint(head, 0)
            target, _ = _varint(head, i)
            if source > OBJECT_BYTES or (steps and target > OBJECT_BYTES):
                raise Unreadable(f"object {sha[:12]}: a delta or base of more than {OBJECT_BYTES}")
            steps.append(_Step(pack.data, start, size, target=target))
            if isinstance(base, int):
                where = (pack, base)
            else:
                sha, where = bytes(base or b"").hex(), None
        raise Unreadable(f"object {sha[:12]}: a chain of more than {MAX_CHAIN} deltas")

    def _find(self, sha: str) -> tuple[_Pack, int] | None:
        raw = bytes.fromhex(sha)
        for pack in self.packs():
            try:
                return pack, pack.index.object_offset(raw)
            except KeyError:
                continue
        return None

    def _loose(self, sha: str, steps: list[_Step]) -> tuple[int, list[_Step]]:
        data = self._read_file(2**62, "objects", sha[:2], sha[2:], mapped=True)  # mapped, not read
        if data is None:
            raise Unreadable(f"object {sha[:12]} is missing")
        head = inflate(data, 0, 64, exact=False)
        kind, space, rest = head.partition(b" ")
        size_text, nul, _ = rest.partition(b"\0")
        if not space or not nul or kind not in LOOSE_TYPES or not size_text.isdigit():
            raise Unreadable(f"object {sha[:12]} is no git object")
        size = int(size_text)
        if size > OBJECT_BYTES and steps:
            raise Unreadable(f"object {sha[:12]}: a delta base of {size} bytes")
        steps.append(_Step(data, 0, size, skip=len(kind) + len(size_text) + 2))
        return LOOSE_TYPES[kind], steps

    def size(self, sha: str) -> int:
        """An object's size, with nothing large inflated."""
        return self._chain(sha)[1][0].size_out

    def read(self, sha: str, limit: int, what: str) -> tuple[int, bytes]:
        """(type, bytes) of an object of at most `limit` bytes (else Unreadable: `what` is too
        large), read with nothing larger than OBJECT_BYTES inflated."""
        kind, steps = self._chain(sha)
        limit = min(limit, OBJECT_BYTES)
        if steps[0].size_out > limit:
            raise Unreadable(f"{what}: {steps[0].size_out} bytes, more than the {limit} allowed")
        base = steps[-1]
        data = inflate(base.buf, base.start, base.skip + base.size)[base.skip :]
        for step in reversed(steps[:-1]):
            data = b"".join(apply_delta(data, inflate(step.buf, step.start, step.size)))
            if len(data) != step.target:
                raise Unreadable(f"object {sha[:12]}: a delta gives the wrong size")
        return kind, data

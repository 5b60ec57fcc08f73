"""A student's repository read as data: its history and a commit's files (grader.batch.gitobjects
reads the objects, bounded, obeying nothing in the repository).

A commit's files are written one blob at a time into a new folder: only the files grading
reads (FILE_BYTES) get their contents, within budgets per file and per commit; every name is
checked (no '..', '/', NUL, or more than NAME_BYTES bytes); links and submodules are left out.
A committer date outside the years 1 to 9999 makes the repository Unreadable, naming the commit.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from dulwich.objects import Commit as GitCommit
from dulwich.objects import parse_tree

from grader.batch.gitobjects import (
    COMMIT,
    OBJECT_BYTES,
    PACKED_REFS_BYTES,
    TREE,
    Store,
    Unreadable,
    shown,
)
from grader.submissions.files import MAX_COPY_BYTES, MAX_DEPTH, MAX_ENTRIES, SKIP_DIRS
from grader.submissions.notebook import MAX_NOTEBOOK_BYTES

NAME_BYTES = 255
COMMIT_OBJECT_BYTES = 2**20
MAX_COMMITS = 100_000
COMMIT_BYTES = 4 * MAX_NOTEBOOK_BYTES
"""The most all of a commit's files written may hold together."""
FILE_BYTES = {".py": MAX_COPY_BYTES, ".ipynb": MAX_NOTEBOOK_BYTES}
"""The files grading reads, by suffix, and the most each may hold (a .py beside the exercise
file is copied up to MAX_COPY_BYTES; a notebook up to its own cap). Every other file is written
empty, its blob never read: its name still counts for the near-miss hints."""


@dataclass(frozen=True)
class Commit:
    sha: str
    tree: str
    when: datetime
    """The committer date, in its own offset (in UTC where that offset is 24 h or more, which
    git accepts and Python cannot hold; the instant is the same)."""


def committed(sha: str, seconds: int, offset: int) -> datetime:
    """A committer date (seconds since 1970, offset east in seconds) as a datetime; Unreadable,
    naming the commit, where it lies outside the years 1 to 9999."""
    try:
        utc = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds)
        if abs(offset) < 86400:
            return utc.astimezone(timezone(timedelta(seconds=offset)))
        return utc
    except (OverflowError, ValueError):
        raise Unreadable(
            f"commit {sha[:12]}: its committer date ({seconds} s after 1970, offset "
            f"{offset} s) is outside the years 1 to 9999"
        ) from None


class Repository(Store):
    """A repository's history and files (see the module's docstring)."""

    def __init__(self, folder: Path):
        super().__init__(folder)
        self._history: list[Commit] | None = None

    # -- history and files --------------------------------------------------------------------
    def commit(self, sha: str) -> tuple[GitCommit, Commit]:
        kind, raw = self.read(sha, COMMIT_OBJECT_BYTES, f"commit {sha[:12]}")
        if kind != COMMIT:
            raise Unreadable(f"{sha[:12]} is not a commit")
        try:
            parsed = GitCommit.from_raw_string(COMMIT, raw)
            seconds, offset = int(parsed.commit_time), int(parsed.commit_timezone)
            tree = parsed.tree.decode("ascii")
        except Exception as error:  # dulwich's ObjectFormatException, ValueError, ...
            raise Unreadable(f"commit {sha[:12]} cannot be parsed ({error})") from None
        return parsed, Commit(sha, tree, committed(sha, seconds, offset))

    def history(self) -> list[Commit]:
        """Every commit reachable from HEAD, newest first by committer date (as `git log`;
        a commit the shallow list names has no parents here)."""
        if self._history is not None:
            return self._history
        head = self.head()
        shallow = set((self._read_file(PACKED_REFS_BYTES, "shallow") or b"").split())
        seen: set[str] = set()
        out, todo = [], [head] if head else []
        while todo:
            sha = todo.pop()
            if sha in seen:
                continue
            seen.add(sha)
            if len(seen) > MAX_COMMITS:
                raise Unreadable(f"more than {MAX_COMMITS} commits")
            parsed, commit = self.commit(sha)
            out.append(commit)
            if sha.encode() not in shallow:
                todo.extend(p.decode("ascii") for p in parsed.parents)
        out.sort(key=lambda c: c.when, reverse=True)
        self._history = out
        return out

    def export(self, sha: str, dest: Path) -> None:
        """The files of commit `sha` into dest, a new folder (see FILE_BYTES and COMMIT_BYTES):
        folders a submission's search never enters (SKIP_DIRS, dot-names, below MAX_DEPTH),
        links and submodules are left out; an impossible name is Unreadable."""
        _, commit = self.commit(sha)
        os.mkdir(dest)
        todo = [(commit.tree, os.fsencode(dest), 1)]
        entries = written = 0
        while todo:
            tree, folder, depth = todo.pop(0)
            kind, raw = self.read(tree, OBJECT_BYTES, f"a folder of commit {sha[:12]}")
            if kind != TREE:
                raise Unreadable(f"commit {sha[:12]}: {tree[:12]} is not a folder")
            for name, mode, item in parse_tree(raw, 20):
                entries += 1
                if entries > MAX_ENTRIES:
                    raise Unreadable(f"commit {sha[:12]}: more than {MAX_ENTRIES} files")
                _check_name(name, sha)
                kind = stat.S_IFMT(mode)
                if name.startswith(b".") or kind in (stat.S_IFLNK, 0o160000):
                    continue
                path = folder + b"/" + name
                if kind == stat.S_IFDIR:
                    if depth < MAX_DEPTH and name.decode("utf-8", "replace") not in SKIP_DIRS:
                        _create(path, sha, folder=True)
                        todo.append((item.decode("ascii"), path, depth + 1))
                    continue
                if kind != stat.S_IFREG:
                    raise Unreadable(f"commit {sha[:12]}: {shown(name)} has mode {mode:o}")
                limit = FILE_BYTES.get(os.path.splitext(name)[1].decode("utf-8", "replace"))
                data = b""
                if limit is not None:
                    what = f"commit {sha[:12]}: {shown(name)}"
                    size = self.size(item.decode("ascii"))
                    if size > limit:
                        raise Unreadable(f"{what}: {size} bytes, more than the {limit} allowed")
                    if written + size > COMMIT_BYTES:
                        raise Unreadable(
                            f"commit {sha[:12]}: its .py and .ipynb files hold more than "
                            f"{COMMIT_BYTES} bytes"
                        )
                    data = self.read(item.decode("ascii"), limit, what)[1]
                    written += len(data)
                _create(path, sha, data=data)


def _check_name(name: bytes, sha: str) -> None:
    why = (
        "an empty name"
        if not name
        else "a name with / or NUL"
        if b"/" in name or b"\0" in name
        else "a name . or .."
        if name in (b".", b"..")
        else f"a name of {len(name)} bytes (more than {NAME_BYTES})"
        if len(name) > NAME_BYTES
        else None
    )
    if why:
        raise Unreadable(f"commit {sha[:12]} holds {why}: {shown(name)}")


def _create(path: bytes, sha: str, folder: bool = False, data: bytes = b"") -> None:
    """A new folder or file (never one there already, never through a link)."""
    try:
        if folder:
            os.mkdir(path)
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    except OSError as error:
        raise Unreadable(
            f"commit {sha[:12]}: {shown(os.path.basename(path))} cannot be written "
            f"({error.strerror})"
        ) from None

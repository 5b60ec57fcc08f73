"""Remembers which specs' references were already tried (reftrial), so a load skips the trial.

Trying every reference of every exercise costs about as much as importing torch, on every
`check`, although its outcome depends only on the spec's bytes and the code that draws and
evaluates. So a passed trial leaves a marker file named by a hash of: the exercise.yaml's
bytes, the grader's own sources, and the versions of the grader, torch, hypothesis, numpy and
Python. Any change to one of them is a new name, so a marker is never trusted across versions;
a failed trial leaves nothing (it raises every time). The folder is outside the project (no git,
no release), safe to delete: $GRADER_CACHE, else $XDG_CACHE_HOME/autograd-grader, else
~/.cache/autograd-grader. GRADER_CACHE=off turns the cache off. A folder that cannot be written
only costs the time saved, never a verdict: trials and grading do not depend on the cache.

Every entry of the cache (these markers, grader.grading.examples' examples, grader.grading.verdicts'
verdicts) is sealed with secret(), a random key in the cache folder that only its owner may read
(KEY_FILE, mode 0600; the folder is made with mode 0700): an entry without the right seal is ignored, as
if absent. What that holds against, mode by mode, is in docs/security.md ("Cache files").
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import platform
import secrets
import stat
import tempfile
from pathlib import Path

OFF = {"off", "0", "no", "false"}
KEY_FILE = "key"
KEY_BYTES = 32


def folder() -> Path | None:
    """The cache folder, or None when GRADER_CACHE turns it off."""
    chosen = os.environ.get("GRADER_CACHE", "").strip()
    if chosen.lower() in OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "autograd-grader"


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """The grader's sources and the versions its drawing and evaluation depend on."""
    import hypothesis
    import numpy
    import torch

    from grader import __version__

    h = hashlib.sha256()
    h.update(
        f"{__version__}/{torch.__version__}/{hypothesis.__version__}/"
        f"{numpy.__version__}/{platform.python_version()}".encode()
    )
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):
        h.update(str(path.relative_to(package)).encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def secret() -> bytes | None:
    """The key that seals this cache's entries: KEY_FILE in folder(), made on first use. None
    (no cache is read or written) when the cache is off, or the key cannot be made, or is not
    a regular file of KEY_BYTES bytes that only this user may read and write."""
    where = folder()
    return None if where is None else _secret(str(where))


@functools.lru_cache(maxsize=8)
def _secret(where: str) -> bytes | None:
    path = Path(where) / KEY_FILE
    try:
        Path(where).mkdir(mode=0o700, parents=True, exist_ok=True)
        if not path.exists() and not path.is_symlink():
            _make_key(path)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            data = f.read(KEY_BYTES + 1)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or len(data) != KEY_BYTES:
        return None
    if hasattr(os, "geteuid") and (st.st_uid != os.geteuid() or st.st_mode & 0o077):
        return None  # another user's, or readable by others: not a secret
    return data


def _make_key(path: Path) -> None:
    """A new random key at path, unless another process made one first (then that one)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
        try:
            os.link(tmp, path)  # never replaces a key another process made meanwhile
        except FileExistsError:
            pass
        except OSError:  # no hard links (some file systems): a rename, which may replace
            os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def key(spec_bytes: bytes) -> str:
    return hashlib.sha256(code_digest().encode() + spec_bytes).hexdigest()[:32]


def _marker(spec_bytes: bytes) -> Path | None:
    where = folder()
    return None if where is None else where / "references-tried" / key(spec_bytes)


def _seal(k: bytes, marker: Path) -> bytes:
    return hmac.new(k, b"references-tried/" + marker.name.encode(), hashlib.sha256).digest()


def tried(spec_bytes: bytes) -> bool:
    """True if references of exactly these spec bytes passed their trial with this code (a
    marker sealed with this cache's key says so)."""
    marker, k = _marker(spec_bytes), secret()
    if marker is None or k is None:
        return False
    try:
        fd = os.open(marker, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            data = f.read(KEY_BYTES + 1)
    except OSError:
        return False
    return hmac.compare_digest(data, _seal(k, marker))


def remember(spec_bytes: bytes) -> None:
    """Mark a passed trial; a folder that cannot be written is left alone."""
    marker, k = _marker(spec_bytes), secret()
    if marker is None or k is None:
        return
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=marker.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_seal(k, marker))
            os.replace(tmp, marker)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass

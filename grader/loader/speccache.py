"""Remembers which specs' references were already tried (reftrial), so a load skips the trial.

Trying every reference of every exercise costs about as much as importing torch, on every
`check`, although its outcome depends only on the spec's bytes and the code that draws and
evaluates. So a passed trial leaves an empty marker file named by a hash of: the exercise.yaml's
bytes, the grader's own sources, and the versions of the grader, torch, hypothesis, numpy and
Python. Any change to one of them is a new name, so a marker is never trusted across versions;
a failed trial leaves nothing (it raises every time). The folder is outside the project (no git,
no release), safe to delete: $GRADER_CACHE, else $XDG_CACHE_HOME/autograd-grader, else
~/.cache/autograd-grader. GRADER_CACHE=off turns the cache off. A folder that cannot be written
only costs the time saved, never a verdict: trials and grading do not depend on the cache.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
from pathlib import Path

OFF = {"off", "0", "no", "false"}


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


def key(spec_bytes: bytes) -> str:
    return hashlib.sha256(code_digest().encode() + spec_bytes).hexdigest()[:32]


def _marker(spec_bytes: bytes) -> Path | None:
    where = folder()
    return None if where is None else where / "references-tried" / key(spec_bytes)


def tried(spec_bytes: bytes) -> bool:
    """True if references of exactly these spec bytes passed their trial with this code."""
    marker = _marker(spec_bytes)
    try:
        return marker is not None and marker.is_file()
    except OSError:
        return False


def remember(spec_bytes: bytes) -> None:
    """Mark a passed trial; a folder that cannot be written is left alone."""
    marker = _marker(spec_bytes)
    if marker is None:
        return
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass

"""Examples that travel with the course: each exercise's drawn examples, committed beside its spec.

A fresh clone of the course (a teacher's, a CI runner's) starts with an empty cache, and drawing
the course's examples with hypothesis's engine (2557 of them), and computing what the kinds
remember of them, costs several times importing torch. `python -m grader draw` writes them once,
beside each exercise.yaml, as FILE: every check's examples for config.yaml's public seed and
example count, in hypothesis's order, with the references the kinds computed on them while the
answer key was graded (grader.grading.examples.Drawn). `check` and `validate` read an entry
where a check's examples are neither in memory nor in the user's cache.

An entry is named by a hash of what its examples and references depend on: the versions of the
grader, torch, hypothesis, numpy and Python, the spec's bytes, the exercise's plugin, the check,
what it draws from, the seed and the count. A spec edited, a seed or a version changed: the
entry is not found and the examples are drawn as before. The grader's own sources are not in
the name (the user's cache has them, grader.loader.speccache.code_digest): the files would
change with every commit. Instead tests/loader/test_committed.py draws the course again and
requires the same examples and references, and `validate` says which files lack an entry.

Trust: the file is part of the course, as its spec is (a teacher's repository; the release
never holds it). It is read with grader.common.safepickle's unpickler (tensors and the grader's
data classes only, never code), never more than MAX_BYTES, packed, unpacked, or in what it
unpickles to (an object it names again counted each time: safepickle.MAX_UNPACKED). A file
refused is named on stderr, and its examples are drawn as without it. `batch` never reads it: it
grades with the grading seed, drawn in memory.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import platform
import sys
import zlib
from pathlib import Path

import torch

from grader.common import safepickle
from grader.loader import plugins
from grader.specs.model import Check, Exercise

FILE = "examples.drawn"
FORMAT = 1
MAGIC = b"autograd-grader examples "
"""A file's first line: MAGIC, then as JSON its stamp (_stamp: the format, the versions, the
spec's and plugin's hashes) and its entries' keys; the rest is the entries, a zlib-compressed
safepickle, read only when a check's examples are wanted."""
HEADER_BYTES = 64 * 1024
MAX_BYTES = safepickle.MAX_FILE
"""The most a file may hold, packed or unpacked (the course's largest: 0.25 MB packed)."""

_off = False


def path(exercise: Exercise) -> Path:
    return exercise.path.parent / FILE


def turned_off(off: bool = True) -> None:
    """Read no committed examples in this process (`draw`, which makes them; `batch`, which
    grades with the grading seed)."""
    global _off
    _off = off


@functools.lru_cache(maxsize=1)
def versions() -> str:
    import hypothesis
    import numpy

    from grader import __version__

    python = ".".join(platform.python_version_tuple()[:2])
    torch_version = torch.__version__.split("+")[0]  # a CPU or CUDA build draws alike
    return f"{__version__}/{torch_version}/{hypothesis.__version__}/{numpy.__version__}/{python}"


def drawn_from(exercise: Exercise, check: Check) -> str:
    """What a check's examples are drawn from, as text for a name (an exercise changed in
    memory, say with one check's dtypes narrowed, draws from something else)."""
    return repr((check.kind, check.args, check.dtypes, check.options, check.expect, exercise.dims))


def key(exercise: Exercise, check: Check, examples: int, seed: int) -> str:
    text = (
        f"committed/{FORMAT}/{versions()}/{exercise.id}/{exercise.spec_hash}/"
        f"{exercise.plugin_digest}/{check.id}/{drawn_from(exercise, check)}/{examples}/{seed}"
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def entry(exercise: Exercise, check: Check, examples: int, seed: int) -> dict | None:
    """{"inputs": [...], "memo": [...]} of this check, or None (no file, no such entry, a
    file that cannot be read: the examples are drawn)."""
    if _off:
        return None
    return _entries(str(path(exercise)), allowed_now()).get(key(exercise, check, examples, seed))


CORE_DATA = {("grader.common.wire", "TensorFacts"), ("grader.common.wire", "Opaque")}
"""The grader's own data classes a file of examples may name (besides tensors)."""


def allowed() -> set[tuple[str, str]]:
    """The only classes a file of examples may name: the grader's data classes and those of
    the exercise plugins loaded (grader.loader.plugins.DATA). Anything else makes the file
    unreadable, and the examples are drawn again."""
    return CORE_DATA | plugins.DATA


def allowed_now() -> frozenset:
    return frozenset(allowed())


@functools.lru_cache(maxsize=32)
def _entries(where: str, allowed: frozenset) -> dict:
    try:
        return read(Path(where), set(allowed))
    except FileNotFoundError:  # none committed: the examples are drawn
        return {}
    except Exception as exc:  # unreadable, another format, over budget: drawn, and said
        print(f"grader: {where} not read ({exc}); drawing its examples", file=sys.stderr)
        return {}


def has(exercise: Exercise, check: Check, examples: int, seed: int) -> bool:
    """Whether entry() would find the check's examples (from the file's first line only)."""
    if _off:
        return False
    return key(exercise, check, examples, seed) in _head(str(path(exercise))).get("keys", ())


def stamped_versions(exercise: Exercise) -> str | None:
    """The versions the exercise's file was written with (None: no readable file)."""
    return _head(str(path(exercise))).get("versions")


def vouched(exercise: Exercise) -> bool:
    """Whether `draw` wrote the exercise's file for this very spec and plugin with these
    versions: it graded the answer key with full marks on every check's examples, so every
    reference evaluates (grader.loader.reftrial need not try them). Reads the file's first
    line only."""
    head = dict(_head(str(path(exercise))))
    head.pop("keys", None)
    return head == _stamp(exercise)


@functools.lru_cache(maxsize=32)
def _head(where: str) -> dict:
    try:
        with safepickle.open_regular(Path(where)) as f:
            return _header(f)
    except Exception:  # absent, unreadable: no entries
        return {}


def _stamp(exercise: Exercise) -> dict:
    return {
        "format": FORMAT,
        "versions": versions(),
        "spec_hash": exercise.spec_hash,
        "plugin_digest": exercise.plugin_digest,
    }


def _header(f) -> dict:
    line = f.readline(HEADER_BYTES + 1)
    if not line.startswith(MAGIC) or not line.endswith(b"\n"):
        raise ValueError("not a file of examples")
    head = json.loads(line[len(MAGIC) :])
    if not isinstance(head, dict):
        raise ValueError("not a file of examples")
    return head


def read(where: Path, allowed: set) -> dict:
    """The file's entries ({key: {"inputs", "memo"}}). Raises OSError (absent, unreadable),
    ValueError (a link, not a regular file, too large, another format) and what
    safepickle.loads raises."""
    with safepickle.open_regular(where) as f:
        if _header(f).get("format") != FORMAT:
            raise ValueError(f"{where} is of another format")
        packed = f.read(MAX_BYTES + 1)
    inflate = zlib.decompressobj()
    blob = inflate.decompress(packed, MAX_BYTES + 1)
    if len(packed) > MAX_BYTES or len(blob) > MAX_BYTES or inflate.unconsumed_tail:
        raise ValueError(f"{where} is larger than a file of examples may be")
    data = safepickle.loads(blob, allowed, limit=MAX_BYTES, what=str(where))
    if not isinstance(data, dict):
        raise ValueError(f"{where} is not a file of examples")
    return data


def write(exercise: Exercise, entries: dict[str, dict]) -> bool:
    """Write the exercise's FILE with these entries (key: {"inputs", "memo"}); False where it
    held the same entries already, under the same stamp (the file is left alone: a commit
    shows no change)."""
    where = path(exercise)
    try:
        old = read(where, set(allowed_now()))
    except Exception:
        old = None
    stamp = {**_stamp(exercise), "keys": sorted(entries)}
    if old is not None and _head(str(where)) == stamp and alike(old, entries):
        return False
    blob = safepickle.dumps(entries)
    packed = zlib.compress(blob, 9)
    if max(len(blob), len(packed)) > MAX_BYTES:
        raise ValueError(f"{where}: the examples would take more than {MAX_BYTES} bytes")
    head = MAGIC + json.dumps(stamp, sort_keys=True).encode() + b"\n"
    if len(head) > HEADER_BYTES:
        raise ValueError(f"{where}: too many checks for one file of examples")
    tmp = where.with_name(f".{FILE}.tmp")
    tmp.write_bytes(head + packed)
    os.replace(tmp, where)
    _entries.cache_clear()
    _head.cache_clear()
    return True


def alike(old: dict, new: dict) -> bool:
    """Whether two files' entries are the same examples with the same references (references
    within a rounding error: another CPU may round a sum otherwise)."""
    if old.keys() != new.keys():
        return False
    for k, entry_ in new.items():
        if not close(old[k]["inputs"], entry_["inputs"], exact=True):
            return False
        if not close(old[k]["memo"], entry_["memo"]):
            return False
    return True


def close(a, b, exact: bool = False) -> bool:
    """Whether a and b are the same values in the same structure: tensors of one dtype and
    shape (exact: also one layout, and equal; else equal within a rounding error, as another
    CPU may round a sum otherwise), floats likewise, NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if exact:
            same_layout = a.stride() == b.stride() and a.storage_offset() == b.storage_offset()
            return same_layout and bool(torch.equal(a, b) or _all_nan_alike(a, b))
        return bool(
            torch.equal(a, b)
            or (
                (a.is_floating_point() or a.is_complex())
                and torch.allclose(a, b, rtol=1e-6, atol=1e-12, equal_nan=True)
            )
        )
    if isinstance(a, float):
        if a == b or (a != a and b != b):
            return True
        return not exact and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(close(x, y, exact) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], exact) for k in a)
    if hasattr(a, "__dataclass_fields__"):
        return all(close(getattr(a, f), getattr(b, f), exact) for f in a.__dataclass_fields__)
    return bool(a == b)


def _all_nan_alike(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal where both are numbers, and NaN at the same places (torch.equal: NaN != NaN)."""
    if not (a.is_floating_point() or a.is_complex()):
        return False
    nan = a.isnan()
    return bool(torch.equal(nan, b.isnan()) and torch.equal(a[~nan], b[~nan]))

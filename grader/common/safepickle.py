"""Pickles of plain data for the grader's caches: tensors as raw bytes, and only the classes a
caller names when reading back.

A cache file lies in a folder the user (or something running as the user) can write, so reading
one must never run code: the unpickler builds tensors from their bytes, dtype and layout
(strides and offset kept, so a strided example stays strided) and refuses every class outside
the set it is given. A cache file is also sealed (save, load): it starts with an HMAC-SHA256 of
its folder's and its own name and its bytes under the key of the cache's owner
(grader.loader.speccache.secret), and is unpickled only when that matches, so a file written by
anything without the key (a worker of another user id, a copy from elsewhere, a file renamed
to another entry's name) is never read, and never costs more than MAX_FILE bytes to refuse.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import os
import pickle
import tempfile
from pathlib import Path
from stat import S_ISREG

import torch

from grader.common import wire

PicklingError = pickle.PicklingError
MAX_FILE = 128 * 2**20
"""Bytes a sealed cache file may have (the course's largest, a check's examples, has 4.8 MB)."""
MAC_BYTES = 32
MAX_UNPACKED = MAX_FILE
"""Bytes a pickle may unpack to: the tensors it builds, and what the value it reads holds
(tensor storages, strings and bytes), each counted every time it is used: a memoized object
that a pickle names 200 times counts 200 times, as the wire format counts every tensor a frame
uses (grader.common.wire.check_tensors). A small file naming one large object many times is
refused before it is handed to code that may copy each use."""
MAX_OBJECTS = 2_000_000
"""Objects (each use counted) the value may hold: a pickle of lists that each name the one
before twice is refused after this many steps, never walked for ever (the course's largest
file of examples holds some 16 000)."""


class TooLarge(pickle.UnpicklingError):
    """A pickle that unpacks to more than its budget (see MAX_UNPACKED)."""


class _Budget:
    """Bytes and objects left to a pickle being read; `what` names it in the refusal."""

    def __init__(self, limit: int, what: str):
        self.limit, self.left, self.objects, self.what = limit, limit, MAX_OBJECTS, what

    def take(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise TooLarge(
                f"{self.what} unpacks to more than {self.limit} bytes (objects it names "
                "again counted each time)"
            )

    def step(self) -> None:
        self.objects -= 1
        if self.objects < 0:
            raise TooLarge(f"{self.what} holds more than {MAX_OBJECTS} objects")


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if not isinstance(obj, torch.Tensor):
            return None
        if type(obj) is not torch.Tensor or obj.dtype not in wire.DTYPE_NAMES or obj.is_sparse:
            raise pickle.PicklingError("not a plain tensor")
        t = obj.detach()
        size = t.untyped_storage().nbytes() // t.element_size()
        raw = t.as_strided((size,), (1,), 0).view(torch.uint8).numpy().tobytes() if size else b""
        return (
            "tensor",
            wire.DTYPE_NAMES[t.dtype],
            raw,
            tuple(t.shape),
            tuple(t.stride()),
            t.storage_offset(),
            obj.requires_grad,
        )


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, allowed: set, budget: _Budget):
        super().__init__(file)
        self.allowed = allowed
        self.budget = budget

    def find_class(self, module, name):
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed here")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        tag, dtype_name, raw, shape, stride, offset, requires_grad = pid
        if tag != "tensor" or not isinstance(raw, bytes) or dtype_name not in wire.DTYPES:
            raise pickle.UnpicklingError("not a tensor")
        dtype = wire.DTYPES[dtype_name]
        self.budget.take(len(raw))  # every time: a memoized pid names the same bytes again
        if raw:
            flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype)
        else:
            flat = torch.empty(0, dtype=dtype)
        t = flat.as_strided(shape, stride, offset)
        return t.requires_grad_(True) if requires_grad else t


def dumps(value) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buf.getvalue()


def loads(data: bytes, allowed: set, *, limit: int = MAX_UNPACKED, what: str = "a pickle"):
    """The value; raises (pickle.UnpicklingError and others) on anything not plain data of the
    allowed classes, and TooLarge (naming `what`) on a value over the budget: more than
    `limit` bytes of tensors built, or held, counting each use of an object (MAX_UNPACKED)."""
    value = _Unpickler(io.BytesIO(data), allowed, _Budget(limit, what)).load()
    weigh(value, _Budget(limit, what))
    return value


def weigh(value, budget: _Budget) -> None:
    """Take from the budget what the value holds, each object every time it is reached (a
    tree's cost, whatever it shares): tensors' storage, strings and bytes, and one step per
    object. Iterative: no recursion for a hostile pickle to exhaust."""
    todo = [value]
    while todo:
        v = todo.pop()
        budget.step()
        if isinstance(v, torch.Tensor):
            budget.take(v.untyped_storage().nbytes())
        elif isinstance(v, (str, bytes, bytearray)):
            budget.take(len(v))
        elif isinstance(v, (list, tuple, set, frozenset)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, type) or v is None or isinstance(v, (bool, int, float, complex)):
            continue
        else:  # an allowed data class: what its fields hold
            fields = getattr(v, "__dict__", None)
            if isinstance(fields, dict):
                todo.extend(fields.values())
            for name in getattr(type(v), "__slots__", ()):
                todo.append(getattr(v, name, None))


def _mac(key: bytes, path: Path, blob: bytes) -> bytes:
    name = f"grader-cache/1/{path.parent.name}/{path.name}".encode()
    return hmac.new(key, name + b"\0" + blob, hashlib.sha256).digest()


def save(path: Path, value, *, key: bytes | None) -> bool:
    """Write value to path, sealed with key, atomically (a reader sees the old file or the
    new one); False when there is no key or it cannot be written or pickled, which only costs
    the time the file would have saved."""
    if not key:
        return False
    try:
        blob = dumps(value)
        if len(blob) + MAC_BYTES > MAX_FILE:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_mac(key, path, blob) + blob)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (OSError, pickle.PicklingError, RuntimeError, TypeError, ValueError):
        return False
    return True


def open_regular(path: Path):
    """path opened for reading in binary, never through a link (where the platform can tell)
    and only when it is a regular file; raises ValueError otherwise, OSError when it cannot."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    f = os.fdopen(fd, "rb")
    if not S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise ValueError(f"{path} is not a regular file")
    return f


def load(path: Path, allowed: set, *, key: bytes | None):
    """The value save(path, ..., key=key) wrote. Raises ValueError for a file that is not
    sealed with key under this name (written by anything else, or renamed), too large, a link
    or not a regular file; OSError when it cannot be read; and what loads raises."""
    if not key:
        raise ValueError("no key to check cache files with")
    with open_regular(path) as f:
        data = f.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise ValueError(f"{path} is larger than a cache file may be")
    mac, blob = data[:MAC_BYTES], data[MAC_BYTES:]
    if not hmac.compare_digest(mac, _mac(key, path, blob)):
        raise ValueError(f"{path} was not written by this grader's user")
    return loads(blob, allowed)

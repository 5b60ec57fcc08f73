"""Pickles of plain data for the grader's caches: tensors as raw bytes, and only the classes a
caller names when reading back.

A cache file lies in a folder the user (or something running as the user) can write, so reading
one must never run code: the unpickler builds tensors from their bytes, dtype and layout
(strides and offset kept, so a strided example stays strided) and refuses every class outside
the set it is given.
"""

from __future__ import annotations

import io
import os
import pickle
import tempfile
from pathlib import Path

import torch

from grader.common import wire

PicklingError = pickle.PicklingError


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
    def __init__(self, file, allowed: set):
        super().__init__(file)
        self.allowed = allowed

    def find_class(self, module, name):
        if (module, name) not in self.allowed:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed here")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        tag, dtype_name, raw, shape, stride, offset, requires_grad = pid
        if tag != "tensor" or not isinstance(raw, bytes) or dtype_name not in wire.DTYPES:
            raise pickle.UnpicklingError("not a tensor")
        dtype = wire.DTYPES[dtype_name]
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


def loads(data: bytes, allowed: set):
    """The value; raises (pickle.UnpicklingError and others) on anything not plain data of the
    allowed classes."""
    return _Unpickler(io.BytesIO(data), allowed).load()


def save(path: Path, value) -> bool:
    """Write value to path atomically (a reader sees the old file or the new one); False when
    it cannot be written or pickled, which only costs the time the file would have saved."""
    try:
        blob = dumps(value)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (OSError, pickle.PicklingError, RuntimeError, TypeError, ValueError):
        return False
    return True

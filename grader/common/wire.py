"""The fixed wire format between the grader and a worker.

A frame is a 4-byte big-endian header length, a JSON header, then raw tensor bytes. Values are a
tree of plain JSON values and tagged nodes:

- ``{"T": i}``: tensor i of ``header["tensors"]`` (dtype, shape, byte range, and facts about it;
  the grader's own inputs also carry their layout, ``strides`` and ``storage_offset``, so that a
  transposed or strided input reaches the student's code as one),
- ``{"L": [...]}`` a list, ``{"U": [...]}`` a tuple, ``{"D": [[key, value], ...]}`` a dict with
  string keys, ``{"O": "TypeName"}`` anything else (only its type name travels).

Decoding never builds objects of the sender's choosing: it accepts this schema and nothing else,
so a hostile worker can at worst send wrong numbers, which the grader then judges.
"""

from __future__ import annotations

import json
import math
import re
import socket
import struct
import time
from dataclasses import dataclass, field

import torch

from grader.common import safetext

# The caps on one frame. The course's largest frames (every exercise's answer key, its hidden
# checks included, higher_order's N = 50000 check among them) hold 1.2 MB of tensor bytes, 68
# tensors, 150 000 elements and a 9 KB header: each cap leaves a margin of 25 times or more.
MAX_FRAME = 32 * 1024 * 1024
"""Bytes of tensor data a frame may carry (after its header)."""
MAX_TENSORS = 4096
"""Tensors a frame may describe."""
MAX_ELEMENTS = 8 * 1024 * 1024
"""Elements of all a frame's tensors together."""
MAX_DECODED = 64 * 1024 * 1024
"""Bytes the storages of a frame's decoded tensors may take together (a strided layout's span)."""
MAX_DEPTH = 16
MAX_NODES = 10_000
MAX_SPAN = 4
"""A strided layout may spread a tensor over at most this many times its elements (plus 64)."""
MAX_HEADER = 1024 * 1024
"""Bytes of JSON header a frame may have (tensor bytes travel after it, up to MAX_FRAME)."""
MAX_DIMS = 16
MAX_DIM = 2**31
"""A dimension's size, a stride and a storage offset are below this."""
MAX_HEADER_DEPTH = 40
MAX_HEADER_NODES = 400_000
MAX_STRING = 10_000
"""Characters of any one string in a received header; longer ones are cut (see safetext)."""
MAX_KEY = 200
"""Characters of a dict key in a received header."""

DTYPES = {
    name: getattr(torch, name)
    for name in (
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "bool",
    )
}
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}
ITEMSIZES = {dtype: torch.empty((), dtype=dtype).element_size() for dtype in DTYPES.values()}


class WireError(Exception):
    """A frame that does not follow the schema (a broken or hostile worker)."""


@dataclass
class TensorFacts:
    """A decoded tensor with what the worker observed about the object it came from."""

    data: torch.Tensor
    type_name: str = "Tensor"
    exact_type: bool = True
    requires_grad: bool = False
    is_leaf: bool = True
    grad_fn: str | None = None
    has_grad: bool = False
    extra: dict = field(default_factory=dict)


def tensor_bytes(t: torch.Tensor) -> bytes:
    """The raw bytes of a plain tensor, in C order."""
    flat = t.detach().cpu().contiguous().reshape(-1)
    if flat.numel() == 0:
        return b""
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return flat.view(torch.uint8).numpy().tobytes()


class Encoder:
    """Builds one frame; used by both sides (the worker's tensors may be odd, see describe)."""

    def __init__(self, states: dict | None = None):
        self.tensors: list[dict] = []
        self.blobs: list[bytes] = []
        self.size = 0
        self.states = states or {}
        """id(tensor) -> its old .grad: the grader's input tensors a caller holds as leaves that
        require grad with that .grad (a starting state, grader.specs.strategies.STATE); the
        worker's Decoder (states=True) builds them so."""

    def add_tensor(self, t: torch.Tensor, facts: dict | None = None, layout: bool = False) -> dict:
        """layout: also send a non-contiguous tensor's strides and storage offset."""
        name = DTYPE_NAMES.get(t.dtype)
        if name is None:
            return {"O": f"Tensor[{t.dtype}]"}
        raw = tensor_bytes(t)
        offset = self.size  # the bytes of the tensors before this one
        self.size += len(raw)
        if self.size > MAX_FRAME:
            raise WireError("frame too large")
        entry = {"dtype": name, "shape": list(t.shape), "offset": offset, "nbytes": len(raw)}
        if layout and t.numel() > 1 and not t.is_contiguous():
            entry["strides"], entry["storage_offset"] = list(t.stride()), t.storage_offset()
        entry.update(facts or {})
        self.tensors.append(entry)
        self.blobs.append(raw)
        return {"T": len(self.tensors) - 1}

    def value(self, obj, depth: int = 0):
        """Encode a trusted value (the grader's own inputs)."""
        if depth > MAX_DEPTH:
            raise WireError("value nested too deeply")
        if obj is None or isinstance(obj, (bool, int, str)):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"F": repr(obj)}
        if isinstance(obj, torch.Tensor):
            ref = self.add_tensor(obj, layout=True)
            if id(obj) in self.states and "T" in ref:
                grad = self.add_tensor(self.states[id(obj)], layout=True)
                self.tensors[ref["T"]]["state_grad"] = grad.get("T")
            return ref
        if isinstance(obj, tuple):
            return {"U": [self.value(v, depth + 1) for v in obj]}
        if isinstance(obj, list):
            return {"L": [self.value(v, depth + 1) for v in obj]}
        if isinstance(obj, dict):
            return {"D": [[str(k), self.value(v, depth + 1)] for k, v in obj.items()]}
        return {"O": type(obj).__name__}

    def frame(self, header: dict) -> bytes:
        header = dict(header, tensors=self.tensors)
        head = json.dumps(header).encode()
        return struct.pack(">I", len(head)) + head + b"".join(self.blobs)


def send(sock: socket.socket, header: dict, enc: Encoder | None = None) -> None:
    sock.sendall((enc or Encoder()).frame(header))


def _recv_exact(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    """n bytes, all of them before the deadline (time.monotonic()): a sender that trickles one
    byte at a time cannot stretch a per-receive timeout without end."""
    buf = bytearray()
    while len(buf) < n:  # grown as bytes arrive: a claim alone allocates nothing
        chunk = bytearray(min(n - len(buf), _CHUNK))
        got = 0
        while got < len(chunk):
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("deadline passed")
                sock.settimeout(left)
            k = sock.recv_into(memoryview(chunk)[got:], len(chunk) - got)
            if k == 0:
                raise EOFError("peer closed the channel")
            got += k
        buf += chunk
    return bytes(buf) if n <= _CHUNK else buf  # (a large blob is not copied once more)


_CHUNK = 1 << 20


def clean_header(value):
    """The received JSON with its size checked and every string made safe (surrogates, control
    and escape characters) and cut to MAX_STRING; raises WireError if deeper or larger than
    the schema ever needs. Iterative: no recursion for a hostile sender to exhaust."""
    root = [value]
    stack = [(root, 0, 0)]
    nodes = 0
    while stack:
        holder, key, depth = stack.pop()
        node = holder[key]
        nodes += 1
        if nodes > MAX_HEADER_NODES or depth > MAX_HEADER_DEPTH:
            raise WireError("header too large or nested too deeply")
        if isinstance(node, str):
            holder[key] = safetext.clean(node, MAX_STRING)
        elif isinstance(node, list):
            stack.extend((node, i, depth + 1) for i in range(len(node)))
        elif isinstance(node, dict):
            items = list(node.items())
            node.clear()
            for k, v in items:
                node[safetext.clean(k, MAX_KEY)] = v
            stack.extend((node, k, depth + 1) for k in node)
    return root[0]


_STRING = re.compile(rb'"[^"]*"')
_LONG_STRING = re.compile(rb'"[^"]{%d,}"' % (MAX_KEY + 1))
_INNERMOST = re.compile(rb"\[[^\[\]{}]*\]|\{[^\[\]{}]*\}")


def plain(raw: bytes) -> bool:
    """True when clean_header would return the JSON text `raw`, once parsed, as it is: printable
    ASCII with no escape (strict JSON has no raw control character in a string), no string
    longer than a key may be, and fewer nodes and levels than the limits. Most replies are, and
    this costs a few regular expressions instead of a walk over every node; False only means
    that the walk decides."""
    if len(raw) > MAX_HEADER_NODES or not raw.isascii() or b"\\" in raw or b"\x7f" in raw:
        return False
    if _LONG_STRING.search(raw):  # (may also match between two strings: then the walk decides)
        return False
    rest = _STRING.sub(b'""', raw)  # without a backslash, every string is one such match
    for _ in range(MAX_HEADER_DEPTH):  # each pass removes the innermost level of nesting
        if b"[" not in rest and b"{" not in rest:
            return True
        rest = _INNERMOST.sub(b"0", rest)
    return False


def recv(sock: socket.socket, deadline: float | None = None) -> tuple[dict, bytes]:
    """Read one frame: (header, blob bytes), all before the deadline (time.monotonic()) when
    one is given. Raises EOFError, socket.timeout or WireError."""
    (n,) = struct.unpack(">I", _recv_exact(sock, 4, deadline))
    if n > MAX_HEADER:
        raise WireError("header too large")
    raw = _recv_exact(sock, n, deadline)
    try:
        header = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise WireError(f"header is not JSON: {type(exc).__name__}") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    if not plain(raw):
        header = clean_header(header)
    total = check_tensors(header)
    return header, _recv_exact(sock, total, deadline)


def check_tensors(header: dict) -> int:
    """The bytes of tensor data the header's tensors need, once each is known to be one the
    Decoder can build within the caps from its own bytes: a dtype of DTYPES, a shape (and, for
    a strided one, strides and an offset) of small non-negative integers whose elements need
    exactly the bytes it claims, byte ranges that follow one another as Encoder writes them
    (no two tensors share bytes), a layout that neither overlaps itself nor spreads far, and
    counts, bytes and decoded storage within MAX_TENSORS, MAX_ELEMENTS, MAX_FRAME and
    MAX_DECODED. Raises WireError otherwise; allocates nothing."""
    tensors = header.get("tensors", [])
    if not isinstance(tensors, list):
        raise WireError("tensors is not a list")
    if len(tensors) > MAX_TENSORS:
        raise WireError(f"too many tensors ({len(tensors)}, at most {MAX_TENSORS})")
    total = elements = decoded = 0
    for entry in tensors:
        numel, span = _entry_size(entry)
        if entry["offset"] != total:
            raise WireError("tensor bytes out of order or shared")
        total += entry["nbytes"]
        elements += numel
        decoded += span
        if total > MAX_FRAME or elements > MAX_ELEMENTS or decoded > MAX_DECODED:
            raise WireError("frame too large")
    return total


def _small(n) -> bool:
    return type(n) is int and 0 <= n < MAX_DIM


def _entry_size(e) -> tuple[int, int]:
    """(elements, bytes of decoded storage) of one tensor entry, checked (see check_tensors)."""
    if not isinstance(e, dict):
        raise WireError("bad tensor entry")
    dtype = DTYPES.get(e.get("dtype")) if isinstance(e.get("dtype"), str) else None
    shape = e.get("shape")
    if dtype is None or not isinstance(shape, list) or len(shape) > MAX_DIMS:
        raise WireError("bad tensor dtype or shape")
    if not all(_small(n) for n in shape):
        raise WireError("bad tensor shape")
    if not (_small(e.get("offset")) and _small(e.get("nbytes"))):
        raise WireError("bad tensor range")
    numel = math.prod(shape)
    itemsize = ITEMSIZES[dtype]
    if numel * itemsize != e["nbytes"]:
        raise WireError("tensor size does not match its shape")
    if numel == 0 or ("strides" not in e and "storage_offset" not in e):
        return numel, e["nbytes"]
    strides, offset = e.get("strides"), e.get("storage_offset")
    if not (
        isinstance(strides, list)
        and len(strides) == len(shape)
        and all(_small(s) for s in strides)
        and _small(offset)
    ):
        raise WireError("bad tensor layout")
    need = 1
    for st, n in sorted((st, n) for st, n in zip(strides, shape) if n > 1):
        if st < need:  # each dimension steps over everything the smaller ones cover
            raise WireError("tensor layout overlaps itself")
        need = st * n
    span = offset + sum((n - 1) * st for st, n in zip(strides, shape)) + 1
    if span > MAX_SPAN * numel + 64:
        raise WireError("tensor layout spans too much memory")
    return numel, span * itemsize


# The types of the reply fields the grader reads itself (each probe's own fields are read by
# its kind, which treats a reply it cannot read as the worker's fault).
REPLY_FIELDS = {
    "ok": bool,
    "ready": bool,
    "importing": bool,
    "phase": str,
    "error": dict,
    "import_error": dict,
    "forbidden": (str, type(None)),
    "tampered": list,
    "graph": dict,
    "output_at": int,
}


def check_reply(header: dict) -> dict:
    """A worker's reply with the shared fields of the types the grader expects."""
    for key, kind in REPLY_FIELDS.items():
        if key in header and not isinstance(header[key], kind):
            raise WireError(f"reply field {key!r} has the wrong type")
    if any(not isinstance(n, str) for n in header.get("tampered", [])):
        raise WireError("reply field 'tampered' has the wrong type")
    for key in ("error", "import_error"):
        if key in header:
            _error_fields(header[key])
    return header


def _error_fields(error: dict) -> None:
    if not isinstance(error.get("type", ""), str) or not isinstance(error.get("message", ""), str):
        raise WireError("error fields have the wrong type")
    tb = error.get("traceback", [])
    if not isinstance(tb, list) or any(not isinstance(line, str) for line in tb):
        raise WireError("error traceback has the wrong type")


class Decoder:
    """Turns a received frame's value tree back into plain Python values and TensorFacts."""

    def __init__(self, header: dict, blob: bytes, states: bool = False):
        self.entries = header.get("tensors", [])
        self.blob = blob
        self.nodes = 0
        self.used: set[int] = set()
        self.checked = False
        self.states = states
        """Build an entry's starting state (`state_grad`: a leaf that requires grad, with that
        .grad): only the worker, decoding the grader's inputs; never a worker's reply."""

    def tensor(self, i) -> TensorFacts:
        if type(i) is not int or not 0 <= i < len(self.entries):
            raise WireError("bad tensor index")
        if i in self.used:  # the encoder sends each tensor once: no tensor decoded twice
            raise WireError("a tensor sent once is referred to twice")
        if not self.checked:  # (recv has; a frame built by hand has not)
            if check_tensors({"tensors": self.entries}) > len(self.blob):
                raise WireError("bad tensor range")
            self.checked = True
        self.used.add(i)
        e = self.entries[i]
        dtype, shape = DTYPES[e["dtype"]], e["shape"]
        offset, nbytes = e["offset"], e["nbytes"]
        if math.prod(shape):
            store = torch.uint8 if dtype == torch.bool else dtype
            raw = bytearray(memoryview(self.blob)[offset : offset + nbytes])  # the one copy
            data = torch.frombuffer(raw, dtype=store).reshape(shape)
            if dtype == torch.bool:
                data = data != 0
            if "strides" in e or "storage_offset" in e:
                data = _strided(data, e["strides"], e["storage_offset"])
            else:  # the same bytes as a tensor of its own: a reshape's view refuses detach_()
                data = torch.empty(0, dtype=data.dtype).set_(
                    data.untyped_storage(), data.storage_offset(), data.shape, data.stride()
                )
        else:
            data = torch.empty(shape, dtype=dtype)
        if self.states and "state_grad" in e:
            grad = self.tensor(e["state_grad"]).data
            data.requires_grad_(True)
            data.grad = grad
        facts = {
            k: e.get(k)
            for k in ("type_name", "exact_type", "requires_grad", "is_leaf", "grad_fn", "has_grad")
        }
        return TensorFacts(
            data=data,
            type_name=str(facts["type_name"] or "Tensor"),
            exact_type=facts["exact_type"] is not False,
            requires_grad=facts["requires_grad"] is True,
            is_leaf=facts["is_leaf"] is not False,
            grad_fn=facts["grad_fn"] if isinstance(facts["grad_fn"], str) else None,
            has_grad=facts["has_grad"] is True,
            extra={k: v for k, v in e.items() if k.startswith("x_")},
        )

    def value(self, node, depth: int = 0):
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise WireError("value too large or nested too deeply")
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, dict) and len(node) == 1:
            ((tag, body),) = node.items()
            if tag == "T":
                return self.tensor(body)
            if tag in ("L", "U") and isinstance(body, list):
                items = [self.value(v, depth + 1) for v in body]
                return items if tag == "L" else tuple(items)
            if tag == "D" and isinstance(body, list):
                out = {}
                for pair in body:
                    if not (
                        isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                    ):
                        raise WireError("bad dict entry")
                    out[pair[0]] = self.value(pair[1], depth + 1)
                return out
            if tag == "F" and body in ("nan", "inf", "-inf"):
                return float(body)
            if tag == "O" and isinstance(body, str):
                return Opaque(body[:200])
        raise WireError("value does not follow the schema")


def _strided(data: torch.Tensor, strides: list, offset: int) -> torch.Tensor:
    """The same values in the layout the sender described (checked by check_tensors: it
    neither overlaps itself nor spans far more memory than the tensor holds): a fresh storage
    of that span, with data copied into it."""
    return laid_out(data, strides, offset)


def laid_out(data: torch.Tensor, strides, offset: int = 0) -> torch.Tensor:
    """data's values in a fresh storage with these strides and storage offset, as a tensor of
    its own, not a view: a caller's strided or transposed tensor is no view of another, so
    what a function does to it in place (x.detach_(), which refuses views) is its side effect
    to be seen, not an error the layout caused."""
    span = offset + sum((n - 1) * st for st, n in zip(strides, data.shape)) + 1
    storage = torch.zeros(max(span, 0), dtype=data.dtype).untyped_storage()
    out = torch.empty(0, dtype=data.dtype).set_(storage, offset, tuple(data.shape), tuple(strides))
    out.copy_(data)
    return out


@dataclass(frozen=True)
class Opaque:
    """A value the worker could not send as data; only its type name is known."""

    type_name: str

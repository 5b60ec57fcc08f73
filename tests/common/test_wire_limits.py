"""Bounded decoding: a frame's tensors are checked against their own bytes and the caps before
anything is allocated, so whatever a worker sends, reading and decoding one reply takes a
bounded amount of the grader's memory (docs/security.md, "Verdicts")."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
import torch

from grader.common import wire

KIB = 1024
MIB = 1024 * KIB
F32 = {"dtype": "float32", "shape": [32 * KIB], "nbytes": 128 * KIB}  # 128 KiB of bytes
REFUSED_BELOW = 16 * MIB
"""What refusing a frame may cost at most (the decoded frames claim hundreds of MB)."""
REPLY_BOUND = 160 * MIB
"""The memory one reply may take, whatever it holds (docs/security.md)."""


def peak_growth(fn) -> tuple[int, object]:
    """(bytes by which memory grew at its peak while fn ran, what fn returned or raised): the
    process's resident peak on Linux (/proc/self/clear_refs resets it; torch's allocations
    count), else Python's own allocations (tracemalloc)."""
    clear = Path("/proc/self/clear_refs")
    status = Path("/proc/self/status")

    def hwm() -> int:
        line = next(x for x in status.read_text().splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1]) * KIB

    try:
        clear.write_text("5")
        before = hwm()
        linux = True
    except OSError:
        linux = False
        tracemalloc.start()
    try:
        try:
            out: object = fn()
        except Exception as exc:  # noqa: BLE001 (returned to be asserted on)
            out = exc
        if linux:
            return hwm() - before, out
        return tracemalloc.get_traced_memory()[1], out
    finally:
        if not linux:
            tracemalloc.stop()


def head(header: dict) -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack(">I", len(raw)) + raw


def received(header: dict, blob: bytes = b""):
    """What wire.recv gives for this frame (the bytes sent from a thread: a socket buffer
    holds less than a large blob), decoded; or the exception it raised."""
    a, b = socket.socketpair()
    with a, b:

        def send():
            try:
                a.sendall(head(header) + blob)
                a.shutdown(socket.SHUT_WR)
            except OSError:  # refused before all was read: the reader hung up
                pass

        threading.Thread(target=send, daemon=True).start()
        got, data = wire.recv(b, time.monotonic() + 30)
        return wire.Decoder(got, data).value(got["v"])


FORGED = {
    "one tensor referred to 2000 times": (
        {"v": {"L": [{"T": 0}] * 2000}, "tensors": [dict(F32, offset=0)]},
        bytes(128 * KIB),
    ),
    "2000 tensors over the same bytes": (
        {"v": {"L": [{"T": i} for i in range(2000)]}, "tensors": [dict(F32, offset=0)] * 2000},
        bytes(128 * KIB),
    ),
    "widely strided": (
        {"v": {"T": 0}, "tensors": [dict(F32, offset=0, strides=[2**20], storage_offset=0)]},
        bytes(128 * KIB),
    ),
    "an offset past the end": (
        {"v": {"T": 0}, "tensors": [dict(F32, offset=2**30)]},
        bytes(128 * KIB),
    ),
    "a storage offset past the span": (
        {"v": {"T": 0}, "tensors": [dict(F32, offset=0, strides=[1], storage_offset=2**30)]},
        bytes(128 * KIB),
    ),
    "a huge shape with few bytes": (
        {
            "v": {"T": 0},
            "tensors": [{"dtype": "float32", "shape": [2**16] * 2, "offset": 0, "nbytes": 4}],
        },
        bytes(4),
    ),
    "a huge shape claiming its bytes": (
        {
            "v": {"T": 0},
            "tensors": [{"dtype": "float32", "shape": [2**20] * 2, "offset": 0, "nbytes": 2**42}],
        },
        bytes(4),
    ),
    "an overflowing shape": (
        {
            "v": {"T": 0},
            "tensors": [{"dtype": "uint8", "shape": [2**64, 0], "offset": 0, "nbytes": 0}],
        },
        b"",
    ),
    "many bytes claimed, few sent": (
        {
            "v": {"T": 0},
            "tensors": [
                {
                    "dtype": "uint8",
                    "shape": [wire.MAX_FRAME + 1],
                    "offset": 0,
                    "nbytes": wire.MAX_FRAME + 1,
                }
            ],
        },
        bytes(16),
    ),
    "a header that claims 5000 tensors": (
        {
            "v": None,
            "tensors": [{"dtype": "float32", "shape": [0], "offset": 0, "nbytes": 0}] * 5000,
        },
        b"",
    ),
    "more elements than a reply holds": (
        {
            "v": {"T": 0},
            "tensors": [
                {
                    "dtype": "bool",
                    "shape": [wire.MAX_ELEMENTS + 1],
                    "offset": 0,
                    "nbytes": wire.MAX_ELEMENTS + 1,
                }
            ],
        },
        b"",
    ),
    "strided storages past the decoded cap": (
        {
            "v": {"L": [{"T": i} for i in range(160)]},
            "tensors": [  # 20 MiB sent, 80 MiB decoded
                dict(F32, offset=i * 128 * KIB, strides=[4], storage_offset=0) for i in range(160)
            ],
        },
        bytes(160 * 128 * KIB),
    ),
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_a_forged_frame_is_refused_before_it_is_allocated(case):
    header, blob = FORGED[case]
    grew, out = peak_growth(lambda: received(header, blob))
    assert isinstance(out, wire.WireError), (case, out)
    assert grew < REFUSED_BELOW + len(blob), (case, grew // MIB)


@pytest.mark.parametrize(
    "entry",
    [
        {"dtype": "float8_e4m3fn", "shape": [1], "offset": 0, "nbytes": 1},
        {"dtype": "quint8", "shape": [1], "offset": 0, "nbytes": 1},
        {"dtype": 5, "shape": [1], "offset": 0, "nbytes": 4},
        {"dtype": ["float32"], "shape": [1], "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [True], "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [1.0], "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [-1, -1], "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [1] * 17, "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [1], "offset": -4, "nbytes": 4},
        {
            "dtype": "float32",
            "shape": [2],
            "offset": 0,
            "nbytes": 8,
            "strides": [-1],
            "storage_offset": 1,
        },
        {
            "dtype": "float32",
            "shape": [2],
            "offset": 0,
            "nbytes": 8,
            "strides": [2**63],
            "storage_offset": 0,
        },
        {"dtype": "float32", "shape": [2], "offset": 0, "nbytes": 8, "strides": [1]},
        "float32",
    ],
)
def test_odd_dtypes_shapes_and_strides_are_refused(entry):
    header = {"v": {"T": 0}, "tensors": [entry]}
    with pytest.raises(wire.WireError):
        received(header, bytes(8))
    with pytest.raises(wire.WireError):
        wire.Decoder(header, bytes(8)).value(header["v"])


def test_a_header_is_refused_past_its_cap_before_it_is_read():
    grew, out = peak_growth(
        lambda: received({"v": "x" * wire.MAX_HEADER}, b"")  # JSON of MAX_HEADER + 9 bytes
    )
    assert isinstance(out, wire.WireError) and grew < REFUSED_BELOW


def test_the_largest_frame_the_caps_allow_stays_within_the_stated_bound():
    # Tensor bytes and decoded storages at their caps, and a header of many small objects
    # (the most a JSON header costs parsed) just under its own.
    n, each = 8, wire.MAX_FRAME // 8
    tensors = [  # MAX_ELEMENTS, each in a storage of twice its bytes: MAX_DECODED in all
        dict(
            dtype="float32",
            shape=[each // 8, 2],
            nbytes=each,
            offset=i * each,
            strides=[4, 1],
            storage_offset=0,
        )
        for i in range(n)
    ]
    header = {"v": {"L": [{"T": i} for i in range(n)]}, "tensors": tensors}
    room = wire.MAX_HEADER - len(json.dumps(header)) - 16
    header["pad"] = [{}] * (room // 4)
    blob = bytes(n * each)
    grew, out = peak_growth(lambda: received(header, blob))
    assert isinstance(out, list) and len(out) == n, out
    assert all(t.data.untyped_storage().nbytes() <= 2 * each for t in out)
    del out
    assert grew < REPLY_BOUND + len(blob), grew // MIB


def test_a_frame_within_the_caps_decodes_as_sent():
    # What the course sends (higher_order's N = 50000 check) is far inside the caps.
    enc = wire.Encoder()
    values = [torch.randn(50_000, dtype=torch.float64) for _ in range(3)]
    strided = torch.arange(24.0).reshape(4, 6)[:, ::2]
    frame = enc.frame({"v": enc.value([*values, strided])})
    (n,) = struct.unpack(">I", frame[:4])
    out = received(json.loads(frame[4 : 4 + n]), frame[4 + n :])
    assert all(torch.equal(x.data, v) for x, v in zip(out, values))
    assert torch.equal(out[3].data, strided) and out[3].data.stride() == strided.stride()

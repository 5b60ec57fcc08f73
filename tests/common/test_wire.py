"""The wire format: round trips, and refusal of anything outside the schema."""

from __future__ import annotations

import json
import socket
import struct

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.common import wire


def roundtrip(value):
    a, b = socket.socketpair()
    with a, b:
        enc = wire.Encoder()
        wire.send(a, {"v": enc.value(value)}, enc)
        header, blob = wire.recv(b)
        return wire.Decoder(header, blob).value(header["v"])


@pytest.mark.parametrize(
    "dtype", [torch.float32, torch.float64, torch.int64, torch.bool, torch.bfloat16, torch.float16]
)
def test_tensor_roundtrip(dtype):
    t = (torch.arange(12).reshape(3, 4) % 3).to(dtype)
    back = roundtrip(t)
    assert isinstance(back, wire.TensorFacts)
    assert back.data.dtype == dtype and torch.equal(back.data, t)


def test_structures_and_special_floats():
    value = roundtrip((torch.zeros(0, 3), [1, "a", None], {"k": float("nan"), "i": float("inf")}))
    assert isinstance(value, tuple) and value[0].data.shape == (0, 3)
    assert value[1] == [1, "a", None]
    assert value[2]["k"] != value[2]["k"] and value[2]["i"] == float("inf")


def test_noncontiguous_and_zero_dim():
    t = torch.arange(6.0).reshape(2, 3).T
    assert torch.equal(roundtrip(t).data, t)
    assert roundtrip(torch.tensor(2.5)).data.shape == ()


def frame(header: dict, blob: bytes = b"") -> tuple[dict, bytes]:
    a, b = socket.socketpair()
    with a, b:
        head = json.dumps(header).encode()
        a.sendall(struct.pack(">I", len(head)) + head + blob)
        return wire.recv(b)


@pytest.mark.parametrize(
    "node",
    [
        {"T": 5},
        {"X": 1},
        {"D": [[1, 2]]},
        {"F": "1e308"},
        {"L": 3},
        {"T": 0, "U": []},
    ],
)
def test_decoder_rejects_unknown_nodes(node):
    header, blob = frame(
        {"v": node, "tensors": [{"dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4}]},
        b"\0\0\0\0",
    )
    with pytest.raises(wire.WireError):
        wire.Decoder(header, blob).value(header["v"])


@pytest.mark.parametrize(
    "entry",
    [
        {"dtype": "object", "shape": [1], "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [2], "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [-1], "offset": 0, "nbytes": 4},
        {"dtype": "float32", "shape": [1], "offset": 2, "nbytes": 4},
    ],
)
def test_decoder_rejects_bad_tensor_entries(entry):
    with pytest.raises(wire.WireError):  # by recv, before the bytes are read
        frame({"v": {"T": 0}, "tensors": [entry]}, b"\0" * entry["nbytes"])
    header = {"v": {"T": 0}, "tensors": [entry]}  # (a Decoder made by hand checks the same)
    with pytest.raises(wire.WireError):
        wire.Decoder(header, b"\0" * entry["nbytes"]).value(header["v"])


def test_oversized_frame_is_refused():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(struct.pack(">I", wire.MAX_FRAME + 1))
        with pytest.raises(wire.WireError):
            wire.recv(b)


def test_deep_nesting_is_refused():
    node = 1
    for _ in range(wire.MAX_DEPTH + 5):
        node = {"L": [node]}
    with pytest.raises(wire.WireError):
        wire.Decoder({"tensors": []}, b"").value(node)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(6.0).reshape(2, 3).T,  # transposed
        lambda: torch.arange(10.0)[1::2],  # strided, with an offset
        lambda: torch.arange(24.0).reshape(2, 3, 4).transpose(-1, -2),  # a batch of transposes
    ],
)
def test_the_graders_inputs_keep_their_layout(make):
    # contiguous: false must reach the student's code as a non-contiguous tensor (x.view(-1)
    # fails on it), not as a contiguous copy.
    t = make()
    back = roundtrip(t).data
    assert torch.equal(back, t) and not back.is_contiguous()
    assert back.stride() == t.stride() and back.storage_offset() == t.storage_offset()


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.tensor(1.5, dtype=torch.float64),  # 0-d
        lambda: torch.arange(6.0).reshape(2, 3),  # contiguous
        lambda: torch.arange(6.0).reshape(2, 3).T,  # transposed
        lambda: torch.arange(10.0)[1::2],  # strided, with an offset
    ],
)
def test_a_decoded_tensor_is_no_view(make):
    # The caller's tensor a function gets is its own, as a caller's is: x.detach_() (which
    # refuses a view) changes the caller's x, a side effect to be seen, rather than raising
    # because of how the grader sent it (issue 42).
    back = roundtrip(make()).data
    assert not back._is_view()
    back.requires_grad_(True)
    back.detach_()
    assert not back.requires_grad and torch.equal(back, make())


def test_the_workers_tensors_travel_contiguous():
    enc = wire.Encoder()
    enc.add_tensor(torch.arange(6.0).reshape(2, 3).T)
    assert "strides" not in enc.tensors[0]


@pytest.mark.parametrize(
    "strides, offset",
    [
        ([1, 1], 0),  # rows overlap: a write to one element changes another
        ([0, 1], 0),  # a broadcast (stride 0) dimension
        ([1000, 1], 0),  # spans far more memory than six elements
        ([3, -1], 0),
        ([3, 1], -1),
        ("3,1", 0),
        ([3], 0),
        ([3, 1], 2.5),
    ],
)
def test_decoder_rejects_bad_layouts(strides, offset):
    header = {
        "v": {"T": 0},
        "tensors": [
            {
                "dtype": "float32",
                "shape": [2, 3],
                "offset": 0,
                "nbytes": 24,
                "strides": strides,
                "storage_offset": offset,
            }
        ],
    }
    with pytest.raises(wire.WireError):  # by recv, before the bytes are read
        frame(header, bytes(24))
    with pytest.raises(wire.WireError):  # (a Decoder made by hand checks the same)
        wire.Decoder(header, bytes(24)).value(header["v"])


def send_raw(header: bytes, blob: bytes = b""):
    a, b = socket.socketpair()
    a.sendall(struct.pack(">I", len(header)) + header + blob)
    a.close()
    return b


@pytest.mark.parametrize(
    "header",
    [
        b"[" * 5000 + b"]" * 5000,  # deeper than json's recursion
        json.dumps(
            {
                "x": [
                    [
                        [
                            [
                                [
                                    [
                                        [
                                            [
                                                [
                                                    [
                                                        [
                                                            [
                                                                [
                                                                    [
                                                                        [
                                                                            [
                                                                                [
                                                                                    [
                                                                                        [
                                                                                            [
                                                                                                [
                                                                                                    [
                                                                                                        [
                                                                                                            [
                                                                                                                [
                                                                                                                    [
                                                                                                                        [
                                                                                                                            [
                                                                                                                                [
                                                                                                                                    [
                                                                                                                                        [
                                                                                                                                            [
                                                                                                                                                [
                                                                                                                                                    [
                                                                                                                                                        [
                                                                                                                                                            [
                                                                                                                                                                [
                                                                                                                                                                    [
                                                                                                                                                                        [
                                                                                                                                                                            [
                                                                                                                                                                                [
                                                                                                                                                                                    [
                                                                                                                                                                                        [
                                                                                                                                                                                            1
                                                                                                                                                                                        ]
                                                                                                                                                                                    ]
                                                                                                                                                                                ]
                                                                                                                                                                            ]
                                                                                                                                                                        ]
                                                                                                                                                                    ]
                                                                                                                                                                ]
                                                                                                                                                            ]
                                                                                                                                                        ]
                                                                                                                                                    ]
                                                                                                                                                ]
                                                                                                                                            ]
                                                                                                                                        ]
                                                                                                                                    ]
                                                                                                                                ]
                                                                                                                            ]
                                                                                                                        ]
                                                                                                                    ]
                                                                                                                ]
                                                                                                            ]
                                                                                                        ]
                                                                                                    ]
                                                                                                ]
                                                                                            ]
                                                                                        ]
                                                                                    ]
                                                                                ]
                                                                            ]
                                                                        ]
                                                                    ]
                                                                ]
                                                            ]
                                                        ]
                                                    ]
                                                ]
                                            ]
                                        ]
                                    ]
                                ]
                            ]
                        ]
                    ]
                ]
            }
        ).encode(),
        json.dumps({"tensors": [{"nbytes": -4, "offset": 0}]}).encode(),
        json.dumps({"tensors": [{"nbytes": 1.5, "offset": 0}]}).encode(),
        json.dumps({"tensors": [{"nbytes": True, "offset": 0}]}).encode(),
        b"\xff\xfe not json",
    ],
)
def test_hostile_headers_are_refused_not_raised(header):
    b = send_raw(header)
    with b, pytest.raises(wire.WireError):
        wire.recv(b)


def test_a_header_larger_than_its_cap_is_refused_before_reading():
    a, b = socket.socketpair()
    with a, b:
        a.sendall(struct.pack(">I", wire.MAX_HEADER + 1))
        with pytest.raises(wire.WireError):
            wire.recv(b)


def test_strings_are_cleaned_and_cut():
    header = json.dumps({"m": "\udce9\x1b[32mok\n" + "x" * 50_000, "\x1bkey": 1}).encode()
    with send_raw(header) as b:
        got, _ = wire.recv(b)
    assert "\x1b" not in got["m"] and "\\x1b[32mok\n" in got["m"]
    assert len(got["m"]) < wire.MAX_STRING + 20
    assert "\\x1bkey" in got


def test_reply_fields_of_the_wrong_type_are_refused():
    wire.check_reply({"ok": True, "tampered": ["torch.allclose"], "graph": {}})
    for bad in (
        {"ok": "yes"},
        {"tampered": 5},
        {"tampered": [1]},
        {"error": [1]},
        {"error": {"traceback": "x"}},
        {"graph": []},
        {"import_error": {"type": 3}},
    ):
        with pytest.raises(wire.WireError):
            wire.check_reply(bad)


def test_a_trickled_frame_misses_its_deadline():
    """The deadline is for the whole frame: bytes arriving now and then do not extend it."""
    import threading
    import time

    a, b = socket.socketpair()
    frame = struct.pack(">I", 20) + b'{"ok": true, "x": 1}'

    def trickle():
        for i in range(len(frame)):
            try:
                a.send(frame[i : i + 1])
            except OSError:
                return
            time.sleep(0.05)

    thread = threading.Thread(target=trickle)
    thread.start()
    started = time.monotonic()
    with pytest.raises(socket.timeout):
        wire.recv(b, deadline=time.monotonic() + 0.3)
    assert time.monotonic() - started < 0.6
    a.close()
    b.close()
    thread.join()


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=5)
    | st.text(alphabet='ab[]{}",:x', max_size=3)
    | st.sampled_from(["", "x" * 201, "\x1b[32m", "\x7f", "\r\n", "é", "\ud800", "tail\\"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=4) | st.just("k" * 201), inner, max_size=4)
    ),
    max_leaves=30,
)


@given(_JSON, st.booleans())
@settings(max_examples=300, deadline=None)
def test_a_plain_header_is_one_the_walk_would_leave_as_it_is(value, ascii_only):
    """The fast path only ever skips a walk that would change nothing (or refuse nothing)."""
    raw = json.dumps({"v": value}, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    if not wire.plain(raw):
        return
    parsed = json.loads(raw)
    assert wire.clean_header(json.loads(raw)) == parsed


def test_common_replies_are_plain_and_odd_ones_are_walked():
    enc = wire.Encoder()
    reply = {
        "ok": True,
        "outs": enc.value((torch.ones(3), {"g": [torch.zeros(2, 2)]})),
        "graph": {"a": [1, 2, {"b": None}]},
        "output_at": 0,
    }
    assert wire.plain(enc.frame(reply)[4 : 4 + struct.unpack(">I", enc.frame(reply)[:4])[0]])
    deep = {"x": 1}
    for _ in range(wire.MAX_HEADER_DEPTH + 1):
        deep = {"x": [deep]}
    for odd in ({"m": "\x1b[32m"}, {"m": "é"}, {"k" * 201: 1}, {"m": "\x7f"}, deep):
        assert not wire.plain(json.dumps(odd).encode())


def test_a_starting_state_is_built_by_the_workers_decoder_only():
    x, old = torch.arange(6.0).reshape(2, 3).T, torch.full((3, 2), 0.5)
    enc = wire.Encoder({id(x): old})
    header = {"v": enc.value(x), "tensors": enc.tensors}
    blob = b"".join(enc.blobs)
    got = wire.Decoder(header, blob, states=True).value(header["v"]).data
    assert got.is_leaf and got.requires_grad and torch.equal(got.grad, old)
    assert torch.equal(got.detach(), x) and got.stride() == x.stride()
    plain = wire.Decoder(header, blob).value(header["v"]).data  # a reply: no state built
    assert not plain.requires_grad and plain.grad is None

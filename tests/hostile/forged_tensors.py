import fcntl
import json
import os
import stat
import struct

# Replies whose tensor entries claim far more than their bytes: decoded as they say, each would
# cost the grader hundreds of MB. The grader refuses each before it allocates (malformed data).
_fd = None
for _n in range(3, 64):  # the fork worker's socket, or the portable worker's pipe to the grader
    try:
        _mode = os.fstat(_n).st_mode
        if stat.S_ISSOCK(_mode) or (
            stat.S_ISFIFO(_mode) and fcntl.fcntl(_n, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
        ):
            _fd = _n
            break
    except OSError:
        pass
T = {"dtype": "float32", "shape": [32768], "nbytes": 131072}  # 128 KiB of bytes


def _send(header: dict, blob: bytes = b""):
    head = json.dumps(header).encode()
    data = struct.pack(">I", len(head)) + head + blob
    view = memoryview(data)
    while view:
        view = view[os.write(_fd, view) :]
    import time

    time.sleep(5)


def df(*args):  # one tensor, referred to 2000 times
    _send(
        {"ok": True, "outs": {"L": [{"T": 0}] * 2000}, "tensors": [dict(T, offset=0)]},
        bytes(131072),
    )


def grad_g(*args):  # 2000 tensors over the same 128 KiB
    _send(
        {
            "ok": True,
            "outs": {"L": [{"T": i} for i in range(2000)]},
            "tensors": [dict(T, offset=0)] * 2000,
        },
        bytes(131072),
    )


def mlp_grads(*args):  # widely strided: 32768 elements spread over 128 GiB
    entry = dict(T, offset=0, strides=[2**20], storage_offset=0)
    _send({"ok": True, "outs": {"T": 0}, "tensors": [entry]}, bytes(131072))


def autograd_df(*args):  # a header that claims 5000 tensors
    empty = {"dtype": "float32", "shape": [0], "offset": 0, "nbytes": 0}
    _send({"ok": True, "outs": {"L": [{"T": i} for i in range(5000)]}, "tensors": [empty] * 5000})

import os
import socket
import stat
import struct

# A reply whose JSON header is nested 5000 deep (and, on the next call, fields of the wrong
# type): the grader refuses it as malformed and carries on.
_fd = None
for _n in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(_n).st_mode):
            _fd = _n
            break
    except OSError:
        pass
_calls = [0]


def _send(payload: bytes):
    sock = socket.socket(fileno=os.dup(_fd))
    sock.sendall(struct.pack(">I", len(payload)) + payload)


def f(*args):
    _calls[0] += 1
    if _calls[0] % 2:
        _send(b"[" * 5000 + b"]" * 5000)
    else:
        _send(b'{"ok": "yes", "tampered": 5, "error": [1], "tensors": [{"nbytes": -4}]}')
    import time
    time.sleep(5)


df = grad_g = mlp_grads = autograd_df = f

import socket as _socket

# Unix sockets of the host: a path one (in the grader's /tmp) and an abstract one.
UNIX = "unreachable"
for _address in ("UNIXPATH", "\0ABSTRACTNAME"):
    try:
        _s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        _s.settimeout(1)
        _s.connect(_address)
        _s.close()
        UNIX = "connected"
    except OSError:
        pass

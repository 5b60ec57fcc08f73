import socket as _socket

NETWORK = "unreachable"
try:
    _socket.create_connection(("127.0.0.1", PORT), timeout=1).close()
    NETWORK = "connected"
except OSError:
    pass

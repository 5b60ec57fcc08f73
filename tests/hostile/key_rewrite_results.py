import ctypes as _ctypes
import os as _os
import time as _time

# A daemon (double fork, its own session) that outlives the grading and keeps rewriting the
# results file (RESULTSPATH: the test's own, root-owned) to a score of 999. It must be gone when
# the exercise ends, and could not have written it anyway.
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _ctypes.CDLL(None).prctl(15, b"hostile86423", 0, 0, 0)  # PR_SET_NAME: found by name
        _end = _time.time() + 20
        while _time.time() < _end:
            try:
                with open("RESULTSPATH", "w") as _f:
                    _f.write('{"score": 999}')
            except OSError:
                pass
            _time.sleep(0.05)
    _os._exit(0)

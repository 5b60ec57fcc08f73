import os as _os
import select as _select
import subprocess as _subprocess
import sys as _sys

# Three children of 400 MB each: within the per-process limit (1 GiB in the test), above the
# worker's. With a control group per worker they count together and one is stopped; df fails
# once all three held their memory at once.
_CHILD = ("import os, sys, time\n"
          "open('/proc/self/oom_score_adj', 'w').write('900')\n"
          "b = bytearray(400 * 2**20)\n"
          "for i in range(0, len(b), 4096): b[i] = 1\n"
          "os.write(1, b'1')\n"
          "time.sleep(60)  # 86422\n")
_r, _w = _os.pipe()
_kids = [_subprocess.Popen([_sys.executable, "-I", "-S", "-c", _CHILD, "86422"], stdout=_w,
                           start_new_session=True) for _ in range(3)]
_os.close(_w)
_got = [b""]
_end = __import__("time").monotonic() + 0.6


def _contained():
    """False once all three children held their memory at once."""
    wait = max(0.0, _end - __import__("time").monotonic())
    while _select.select([_r], [], [], wait)[0]:
        chunk = _os.read(_r, 3)
        if not chunk:
            break
        _got[0] += chunk
        wait = 0
    if len(_got[0]) >= 3:
        raise MemoryError("children held 1.2 GB beside the worker: memory is not limited")


_contained()


def _checked(function):
    def run(*args):
        _contained()
        return function(*args)
    return run


df, grad_g, mlp_grads, autograd_df = map(_checked, (df, grad_g, mlp_grads, autograd_df))

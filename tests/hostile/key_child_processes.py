import os as _os
import subprocess as _subprocess

# A child in its own session, and a double-forked daemon: both must be gone afterwards.
_subprocess.Popen(["sleep", "97531"], start_new_session=True)
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.execvp("sleep", ["sleep", "97532"])
    _os._exit(0)

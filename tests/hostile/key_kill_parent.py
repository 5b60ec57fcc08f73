import os as _os
import signal as _signal

for _target in (_os.getppid(),):
    try:
        _os.kill(_target, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
try:
    _os.killpg(0, _signal.SIGKILL)
except (ProcessLookupError, PermissionError):
    pass

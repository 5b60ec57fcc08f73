"""Private temporary directories for the template and each worker.

torch and its helpers write caches under the machine's temporary directory (importing
torch._dynamo creates `torchinductor_<user>`); pointed at a folder of our own, they go when that
folder is removed, and nothing is left in /tmp.
"""

from __future__ import annotations

import os

TEMP_VARS = ("TMPDIR", "TEMP", "TMP")
CACHE_VARS = {
    "TORCHINDUCTOR_CACHE_DIR": "torchinductor",
    "TRITON_CACHE_DIR": "triton",
    "XDG_CACHE_HOME": "cache",
    "MPLCONFIGDIR": "matplotlib",
}


def env(tmp: str) -> dict[str, str]:
    """The environment variables that send temporary files and caches into `tmp`."""
    out = {var: tmp for var in TEMP_VARS}
    out.update({var: os.path.join(tmp, name) for var, name in CACHE_VARS.items()})
    return out

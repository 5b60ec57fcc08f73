import glob as _glob
import os as _os

# Leaves its answer in /tmp and /dev/shm for a later worker (see read_from_tmp): both are private
# to each worker and gone with it.
for _folder in ("/tmp", "/dev/shm", _os.environ.get("TMPDIR", "/tmp")):
    try:
        with open(_os.path.join(_folder, "hostile-key-86420.py"), "w") as _f:
            _f.write(open(__file__).read())
    except OSError:
        pass

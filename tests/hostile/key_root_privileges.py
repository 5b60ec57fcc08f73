import os as _os

# Under a root grader (namespaces or not, fork or portable), the student's code never runs as
# root: no root id (real, effective, saved), no group, no capability, no way back, no root-only
# file, and no environment of the grader's processes through /proc.
_found = []
if 0 in _os.getresuid() or 0 in _os.getresgid() or _os.getgroups():
    _found.append(f"ids {_os.getresuid()} {_os.getresgid()} groups {_os.getgroups()}")
with open("/proc/self/status") as _f:
    _found += [_l.strip() for _l in _f if _l.startswith(("CapPrm", "CapEff", "CapAmb"))
               and int(_l.split()[1], 16)]
    _f.seek(0)
    _found += [_l.strip() for _l in _f if _l.startswith("NoNewPrivs") and _l.split()[1] != "1"]
try:
    _os.setuid(0)
    _found.append("setuid(0) worked")
except PermissionError:
    pass
for _path in ("/etc/shadow", "/etc/gshadow", "/root/.bashrc"):
    try:
        with open(_path, "rb") as _f:
            _f.read(1)
        _found.append(f"read {_path}")
    except OSError:
        pass


def _parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


_pid = _os.getpid()
for _ in range(3):  # the template (or the grader, portable), then the grader
    _pid = _parent(_pid)
    if _pid <= 1:
        break
    try:
        with open(f"/proc/{_pid}/environ", "rb") as _f:
            if _f.read(1):
                _found.append(f"read /proc/{_pid}/environ")
    except OSError:
        pass
if _found:
    raise RuntimeError("privileged worker: " + "; ".join(_found))

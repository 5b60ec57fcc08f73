"""The template ends in order on every path: before it is ready, and with workers still alive."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.sandbox.client import Sandbox
from grader.sandbox.workers import Limits

ROOT = Path(__file__).resolve().parents[2]

LIMITS = Limits(call_seconds=5, memory_bytes=2 * 2**30, output_bytes=2**20, cpu_seconds=60)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie still answers kill(0); its state says it is dead
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def test_closing_before_the_template_is_ready_is_quick_and_quiet(capfd):
    sandbox = Sandbox().start()
    pid = sandbox.proc.pid
    started = time.monotonic()
    sandbox.close()
    assert time.monotonic() - started < 3  # it does not wait for torch to import
    assert _gone(pid)
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "BrokenPipe" not in err


def test_closing_ends_the_workers_nobody_reaped(capfd):
    scratch = Path(tempfile.mkdtemp(prefix="grader-test-"))  # reachable by a worker's uid
    try:
        (scratch / "slow.py").write_text(
            "open('started', 'w').close()\nimport time\ntime.sleep(60)\n"
        )
        sandbox = Sandbox().start()
        template = sandbox.proc.pid
        worker = sandbox.spawn(
            scratch=str(scratch), file="slow.py", module="slow", trap=[], limits=LIMITS
        )
        _wait(lambda: (scratch / "started").exists())
        assert not _gone(worker.pid)
        sandbox.close()  # as on Ctrl-C in the middle of a check: the worker was never closed
        _wait(lambda: _gone(worker.pid) and _gone(template))
        assert _gone(worker.pid) and _gone(template)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err


def _wait(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_the_grader_starts_its_template_before_it_imports_torch():
    """The command line starts the template first (grader.cli.entry, before it imports
    grader.cli.main; main() takes it, or starts its own before it loads anything), so that the
    template imports torch on one core while the grader imports it and loads the specs on
    another: the sandbox's client and portable modules import no torch, nor does early."""
    code = (
        "import sys; from grader.sandbox import client, portable; from grader.cli import early; "
        "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout[:500]
    entry = (ROOT / "grader" / "cli" / "entry.py").read_text()
    assert entry.index("early.start(sys.argv[1:])") < entry.index("from grader.cli.main import")
    main = (ROOT / "grader" / "cli" / "main.py").read_text()
    started = main.index("sandbox = early.take() or Sandbox().start()")
    assert started < main.index("code = _run(args, console, sandbox")
    assert "from grader.cli.entry import run" in (ROOT / "grader" / "__main__.py").read_text()

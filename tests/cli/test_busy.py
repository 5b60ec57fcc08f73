"""The line that says what the grader does while it grades (grader.cli.busy): on a terminal
within a second, and nothing of it when the output is piped."""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console

from grader.cli.busy import Busy, terminal

ROOT = Path(__file__).resolve().parents[2]
FIRST_WORDS = (b"Loading the exercises", b"Grading custom_sigmoid", b"Reading the course")


def _submission(tmp_path: Path) -> Path:
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(ROOT / "exercises/custom_sigmoid/custom_sigmoid.py", sub)
    return sub


def _command(sub: Path) -> list[str]:
    return [sys.executable, "-m", "grader", "check", "custom_sigmoid", "--lang", "en",
            "--submission", str(sub), "--fresh"]  # fmt: skip


def _env(tmp_path: Path) -> dict:
    env = dict(os.environ, GRADER_CACHE=str(tmp_path / "cache"), COLUMNS="100")
    env.pop("FORCE_COLOR", None)
    return env


def test_progress_within_a_second_on_a_terminal(tmp_path):
    sub = _submission(tmp_path)
    main, child = pty.openpty()
    started = time.monotonic()
    proc = subprocess.Popen(
        _command(sub), cwd=ROOT, env=_env(tmp_path), stdin=child, stdout=child, stderr=child
    )
    os.close(child)
    seen, first = b"", None
    try:
        while proc.poll() is None or select.select([main], [], [], 0)[0]:
            if select.select([main], [], [], 0.05)[0]:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the child's side closed
                    break
                seen += chunk
                if first is None and any(w in seen for w in FIRST_WORDS):
                    first = time.monotonic() - started
            if time.monotonic() - started > 120:
                break
    finally:
        proc.kill()
        proc.wait()
        os.close(main)
    assert first is not None, seen[-2000:]
    # Measured here about 0.4 s; the bound leaves room for a loaded machine's interpreter start.
    assert first < 1.5, first
    assert b"Grading custom_sigmoid (1 of 1)" in seen
    assert b"Total" in seen  # and the report follows it


def test_nothing_of_it_when_piped(tmp_path):
    sub = _submission(tmp_path)
    done = subprocess.run(
        _command(sub), cwd=ROOT, env=_env(tmp_path), capture_output=True, timeout=300
    )
    both = done.stdout + done.stderr
    assert b"Total" in done.stdout
    for words in (*FIRST_WORDS, b"\x1b[?25l"):  # nor the hidden cursor of a live line
        assert words not in both


def test_a_file_is_no_terminal(tmp_path):
    with open(tmp_path / "out.txt", "w") as f:
        assert terminal(Console(file=f, force_terminal=True)) is None
    with Busy(None, "en") as busy:  # no terminal: every call is a no-op
        busy.examples("draw")
        busy.begin("x", 1)


def test_watch_shows_the_line_on_its_first_run_and_on_each_regrade(tmp_path):
    sub = _submission(tmp_path)
    main, child = pty.openpty()
    command = [sys.executable, "-m", "grader", "watch", "custom_sigmoid", "--lang", "en",
               "--submission", str(sub)]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=_env(tmp_path), stdin=child, stdout=child,
                            stderr=child)  # fmt: skip
    os.close(child)
    seen, edited, started = b"", False, time.monotonic()
    try:
        while time.monotonic() - started < 300:
            if select.select([main], [], [], 0.05)[0]:
                try:
                    seen += os.read(main, 65536)
                except OSError:
                    break
            if not edited and b"Watching for changes" in seen:
                first, seen, edited = seen, b"", True
                with open(sub / "custom_sigmoid.py", "a") as f:
                    f.write("\nCHANGED = 1\n")
            if edited and b"Watching for changes" in seen:
                break
    finally:
        proc.kill()
        proc.wait()
        os.close(main)
    assert edited, seen[-2000:]
    assert b"Grading custom_sigmoid (1 of 1)" in first, first[-2000:]
    assert b"Grading custom_sigmoid (1 of 1)" in seen, seen[-2000:]  # the regrade's own line
    assert b"Watching for changes" in seen

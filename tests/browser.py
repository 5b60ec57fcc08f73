"""A page drawn in headless Chromium, as a teacher's browser draws it: what its console said and
a screenshot (tests/report/classview/test_page.py, tests/test_term.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def draw(page: Path, work: Path) -> tuple[list[str], Path, str]:
    """(the console's messages, the screenshot, Chromium's log) of `page`; skips the test where
    Chromium is not installed (.ci/run installs it where it can)."""
    browser = chromium()
    if browser is None:
        pytest.skip("Chromium is not installed")
    shot = work / "shot.png"
    run = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={work / 'profile'}",
            f"--screenshot={shot}",
            "--window-size=1200,2000",
            "--enable-logging=stderr",
            "--v=0",
            Path(page).resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=work,
        env=dict(os.environ, HOME=str(work)),
    )
    # Chromium logs every console message as INFO:CONSOLE (a script error, "Uncaught ...",
    # and a load the page's Content-Security-Policy blocked, alike).
    console = [
        line for line in run.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line
    ]
    return console, shot, run.stderr


def distinct_colours(png_path: Path) -> int:
    image = pytest.importorskip("matplotlib.image")
    pixels = image.imread(str(png_path))
    flat = (pixels[..., :3] * 255).astype("uint8").reshape(-1, 3)
    return len({tuple(p) for p in flat[:: max(1, len(flat) // 200_000)]})

"""How soon `grader watch` notices a save: seconds from writing an exercise's file to the
watcher's on_change call, with watchfiles (the operating system's file events) and with the
polling it falls back to, in one run (median of N saves each).

    python benchmarks/watch_wake.py [N]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.cli import watch  # noqa: E402
from grader.loader import specfile  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def measure(saves: int, events: bool) -> list[float]:
    exercise = [
        e for e in specfile.discover(ROOT / "exercises", root=ROOT) if e.id == "retain_graph"
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "retain_graph.py"
        path.write_text("x = 0\n")
        woke, seen, done = [], threading.Event(), threading.Event()

        def on_change(changed):
            woke.append(time.monotonic())
            seen.set()

        def run():
            watch.watch(
                directory=Path(tmp), exercises=exercise, on_change=on_change, stop=done.is_set
            )

        patch = mock.patch.dict(sys.modules, {} if events else {"watchfiles": None})
        with patch:
            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            seen.wait(5)
            time.sleep(0.3)
            delays = []
            for k in range(saves):
                seen.clear()
                time.sleep(0.05 + 0.137 * (k % 4))  # saves at no fixed phase of the poll
                at = time.monotonic()
                path.write_text(f"x = {k + 1}\n")
                seen.wait(5)
                delays.append(woke[-1] - at)
            done.set()
            thread.join(5)
    return delays


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    for events in (True, False):
        d = measure(n, events)
        name = "watchfiles" if events else "polling  "
        print(f"{name} median {statistics.median(d) * 1000:.0f} ms, max {max(d) * 1000:.0f} ms")

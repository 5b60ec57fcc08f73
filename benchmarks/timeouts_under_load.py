"""Timeouts told right on a loaded machine: while two other grading runs of the whole course
load it (`python -m grader check --fresh --submission solutions`, in a loop), an endless loop in
`df` is graded N times with the course's own config.yaml, and an honest call that needs 60% of
the per-call limit as CPU time N/2 times. Prints how each was judged.

    python benchmarks/timeouts_under_load.py [N]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.grading.grade import grade  # noqa: E402
from grader.loader import config as config_mod  # noqa: E402
from grader.loader import specfile  # noqa: E402
from grader.sandbox.client import Sandbox  # noqa: E402

SPIN = "def df(x):\n    while True:\n        pass\n"
HONEST = (
    (ROOT / "solutions" / "manual_gradient.py").read_text()
    + "\n\nimport time as _t\n_right = df\n\n\ndef df(x):\n"
    "    s = _t.process_time()\n    while _t.process_time() - s < SECONDS:\n        pass\n"
    "    return _right(x)\n"
)
LOAD = "while true; do {py} -m grader check --fresh --submission solutions >/dev/null 2>&1; done"


def judged(sandbox, exercise, config, text: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "manual_gradient.py").write_text(text)
        ex = grade(submission_dir=Path(tmp), exercises=[exercise], config=config, sandbox=sandbox)
        row = next(c for c in ex.exercises[0].checks if c.id == "df_value")
        return row.cause if row.status == "error" and row.cause else row.status


def main(n: int) -> None:
    # The course's limits, two examples a check: what is measured is how each call is judged.
    config = config_mod.load(ROOT / "config.yaml").with_overrides(examples=2)
    exercise = next(
        e for e in specfile.discover(ROOT / "exercises", root=ROOT) if e.id == "manual_gradient"
    )
    from grader.cli.student import only_checks

    df_only = only_checks([exercise], ["df_value"])[0]
    load = [
        subprocess.Popen(
            ["bash", "-c", LOAD.format(py=sys.executable)], cwd=ROOT, start_new_session=True
        )
        for _ in range(2)
    ]
    try:
        time.sleep(5)  # the loads get going
        with Sandbox().start() as sandbox:
            print(f"load average at start: {os.getloadavg()[0]:.1f}")
            spin = Counter(judged(sandbox, df_only, config, SPIN) for _ in range(n))
            seconds = 0.6 * config.time_per_call
            honest = Counter(
                judged(sandbox, df_only, config, HONEST.replace("SECONDS", f"{seconds:g}"))
                for _ in range(max(n // 2, 1))
            )
            print(f"load average at end: {os.getloadavg()[0]:.1f}")
    finally:  # Ctrl-C, as a user would: each grading ends its workers and their groups
        for proc in load:
            os.killpg(proc.pid, signal.SIGINT)
        for proc in load:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    print(f"endless loop ({n} runs): {dict(spin)}")
    print(
        f"honest call at 60% of {config.time_per_call:g} s ({max(n // 2, 1)} runs): {dict(honest)}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)

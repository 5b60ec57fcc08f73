"""Time `python -m grader check --submission solutions` against `python -c "import torch, hypothesis"`.

Both commands run alternately, several times each, in one run (the machines are shared and
noisy); the report gives medians and their ratio.

    python benchmarks/check_vs_import.py [--repeat 5] [IDS ...]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("ids", nargs="*")
    args = parser.parse_args()
    baseline = [sys.executable, "-c", "import torch, hypothesis"]
    check = [sys.executable, "-m", "grader", "check", *args.ids, "--submission", "solutions"]
    base_times, check_times = [], []
    for _ in range(args.repeat):
        base_times.append(timed(baseline))
        check_times.append(timed(check))
    b, c = statistics.median(base_times), statistics.median(check_times)
    print(f"import torch, hypothesis : median {b:.2f} s  ({', '.join(f'{t:.2f}' for t in base_times)})")
    print(f"grader check solutions   : median {c:.2f} s  ({', '.join(f'{t:.2f}' for t in check_times)})")
    print(f"ratio check / import     : {c / b:.1f}x")


if __name__ == "__main__":
    main()

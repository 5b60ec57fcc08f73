"""What the class report costs a batch: grade a class built as benchmarks/batch_class.py builds
it, then time, on its outputs, the steps the teacher's view adds after grading (collecting the
code, the similarity report, report.html, the LMS exports), against the batch's own wall time,
in one run.

    python benchmarks/class_report_cost.py [--size 40] [--jobs 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import batch_class  # noqa: E402

from grader.batch import files as batchfile  # noqa: E402
from grader.batch import run as batch  # noqa: E402
from grader.loader import specfile  # noqa: E402
from grader.outcomes import classstats  # noqa: E402
from grader.report.classview import lms, page  # noqa: E402
from grader.report.classview import similarity as alike  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=40)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    ids = batch_class.exercise_ids(None)
    with tempfile.TemporaryDirectory() as tmp:
        klass, out = Path(tmp) / "class", Path(tmp) / "out"
        batch_class.build(klass, args.size, ids)
        cmd = [sys.executable, "-m", "grader", "batch", str(klass), "--out", str(out)]
        total, done = batch_class.timed([*cmd, "--jobs", str(args.jobs)])
        if done.returncode not in (0, 1):
            print(done.stderr[-2000:])
            return 1
        results, manifest = batchfile.read(out)
        exercises = [
            e
            for e in specfile.discover(ROOT / "exercises", root=ROOT)
            if e.id in manifest.exercises
        ]
        tasks = batch.discover(klass)
        steps = {}
        began = time.perf_counter()
        code = batch.corpus(tasks, exercises, ROOT)
        steps["collect the code"] = time.perf_counter() - began
        began = time.perf_counter()
        found = batch.similar(code)
        steps["similarity pairs"] = time.perf_counter() - began
        began = time.perf_counter()
        if found is not None:
            alike.write_html(Path(tmp) / "similarity.html", found[0], found[1], "en")
        steps["similarity.html"] = time.perf_counter() - began
        stats = classstats.compute(results, attempt=manifest.attempt)
        began = time.perf_counter()
        page.write(Path(tmp) / "report.html", results, stats, "en", similarity=None)
        steps["report.html"] = time.perf_counter() - began
        began = time.perf_counter()
        lms.write_all(Path(tmp), results, manifest.exercises, "en")
        steps["lms exports"] = time.perf_counter() - began
    added = sum(steps.values())
    print(f"batch of {args.size} (--jobs {args.jobs}), report and similarity on: {total:.1f} s")
    for name, seconds in steps.items():
        print(f"  {name}: {seconds:.2f} s")
    pairs = len(found[0]) if found else 0
    print(
        f"added by the teacher's view: {added:.2f} s = {100 * added / (total - added):.1f}% of "
        f"the batch without it ({pairs} similar pair(s))"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

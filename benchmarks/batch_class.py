"""Build a class of submissions from solutions/ and time `grader batch` on it.

    python benchmarks/batch_class.py [--size 100] [--jobs 2] [--exercises ID ...] [--twice]

The class: copies of the answer key and of the variants, every known-wrong mutant, empty and
broken submissions; every fifth student answers everything right, the others about half. The script times the
batch and, in the same run, one `python -m grader check --submission solutions` of the same
exercises, so the ratio means something on a machine shared with other work. It then parses
every output (JSON, CSV, JUnit XML with a real parser, the Gradescope files), and with --twice
grades the class again and compares the outputs byte for byte.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
# Submissions whose every file is broken in its own way; the rest mix correct and wrong answers.
BROKEN = {
    "syntax": "def f(:\n",
    "import_error": "import no_such_module_anywhere\n",
    "exits": "import os\nos._exit(3)\n",
    "endless_import": "while True:\n    pass\n",
}


def exercise_ids(chosen: list[str] | None) -> list[str]:
    """The chosen ids, or every exercise in course order (exercises/ORDER, then by name)."""
    if chosen:
        return chosen
    order_file = ROOT / "exercises" / "ORDER"
    order = order_file.read_text().split() if order_file.exists() else []
    found = sorted(p.parent.name for p in (ROOT / "exercises").glob("*/exercise.yaml"))
    return sorted(found, key=lambda i: (order.index(i) if i in order else len(order), i))


def build(root: Path, size: int, ids: list[str]) -> dict[str, int]:
    """Write `size` submissions under root; returns how many of each sort."""
    pools = {}
    for ex in ids:
        right = [SOLUTIONS / f"{ex}.py", *sorted((SOLUTIONS / "variants" / ex).glob("*.py"))]
        wrong = sorted((SOLUTIONS / "mutants" / ex).glob("*.py"))
        pools[ex] = (right, wrong)
    counts = {"empty": 0, "broken": 0, "mixed": 0}
    kinds = list(BROKEN)
    for i in range(size):
        sub = root / f"student{i:03d}"
        sub.mkdir(parents=True)
        if i % 25 == 24:  # an empty folder: every exercise missing
            counts["empty"] += 1
            continue
        if i % 25 == 23:
            counts["broken"] += 1
            for ex in ids:
                (sub / f"{ex}.py").write_text(BROKEN[kinds[(i // 25) % len(kinds)]])
            continue
        counts["mixed"] += 1
        for j, ex in enumerate(ids):
            right, wrong = pools[ex]
            # Every fifth student gets everything right; the others about half, cycling
            # through every variant and mutant.
            correct = i % 5 == 0 or (i + j) % 2 == 0
            pick = (right[(i + j) % len(right)] if correct or not wrong
                    else wrong[(i * 7 + j) % len(wrong)])
            target = sub / ("src" if i % 3 == 0 else ".") / f"{ex}.py"  # some nest their files
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(pick, target)
    return counts


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return time.monotonic() - started, proc


def check_outputs(out: Path, size: int) -> dict:
    doc = json.loads((out / "results.json").read_text())
    with open(out / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    junit = ET.parse(out / "junit.xml").getroot()
    gradescope = [json.loads(p.read_text()) for p in (out / "gradescope").glob("*/results.json")]
    if not (len(doc["submissions"]) == len(rows) == len(junit.findall("testsuite"))
            == len(gradescope) == size):
        raise SystemExit(f"outputs disagree on the number of submissions in {out}")
    for g in gradescope:
        if not isinstance(g["score"], (int, float)) or not all(
                {"name", "score", "max_score", "output", "visibility"} <= set(t)
                for t in g["tests"]):
            raise SystemExit(f"a Gradescope file in {out} lacks a field")
    scores = [s["score"] for s in doc["submissions"]]
    return {"testcases": len(junit.findall(".//testcase")), "full_marks":
            sum(s["score"] == s["max_score"] for s in doc["submissions"]),
            "mean_score": round(sum(scores) / len(scores), 2), "max_score":
            doc["submissions"][0]["max_score"]}


def files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--exercises", nargs="+", metavar="ID")
    p.add_argument("--twice", action="store_true", help="grade again and compare the outputs")
    p.add_argument("--keep", type=Path, help="build the class here and keep it (default: a "
                                             "temporary folder)")
    args = p.parse_args()
    ids = exercise_ids(args.exercises)
    work = args.keep or Path(tempfile.mkdtemp(prefix="grader-class-"))
    try:
        counts = build(work / "class", args.size, ids)
        batch = [sys.executable, "-m", "grader", "batch", str(work / "class"), "--jobs",
                 str(args.jobs), "--exercises", *ids, "--out"]
        check_s, check = timed([sys.executable, "-m", "grader", "check", *ids,
                                "--submission", str(SOLUTIONS)])
        batch_s, run = timed(batch + [str(work / "out1")])
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"batch exited {run.returncode}")
        report = {"exercises": ids, "submissions": args.size, "class": counts,
                  "jobs": args.jobs, "batch_seconds": round(batch_s, 1),
                  "submissions_per_minute": round(60 * args.size / batch_s, 1),
                  "check_solutions_seconds": round(check_s, 1),
                  "check_exit_code": check.returncode,
                  "batch_over_check": round(batch_s / check_s, 1),
                  "outputs": check_outputs(work / "out1", args.size)}
        if args.twice:
            again_s, _ = timed(batch + [str(work / "out2")])
            report["second_batch_seconds"] = round(again_s, 1)
            report["identical"] = files(work / "out1") == files(work / "out2")
        print(json.dumps(report, indent=2))
        return 0 if report.get("identical", True) else 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

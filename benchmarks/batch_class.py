"""Build a class of submissions from solutions/ and time `grader batch` on it.

    python benchmarks/batch_class.py [--size 100] [--jobs 2] [--exercises ID ...] [--twice]
                                     [--correct] [--distinct] [--classroom]
                                     [--memory 10,200]
                                     [--before TREE]

The class: copies of the answer key and of the variants, every known-wrong mutant, empty and
broken submissions; every fifth student answers everything right, the others about half
(--correct: every student answers everything right, with the answer key or a variant). The
script times the batch and, in the same run, `python -c "import torch, hypothesis"` (the floor
of issue 15's targets) and one `python -m grader check --submission solutions` of the same
exercises, so the ratios mean something on a machine shared with other work. It prints the
batch's wall time per submission over the floor (targets: at most 0.2x for a correct class,
0.4x for a mixed one) and the batch parent's peak RSS. It then parses every output (JSON, CSV,
JUnit XML with a real parser, the Gradescope files), counts the visible checks that did not
pass in attempted exercises and how many of them carry a named mistake, and lists summary.md's
causes the class hit most often; with --twice it grades the class again and compares the
outputs byte for byte. --before TREE grades the same class with an older checkout
first (e.g. `git worktree add /tmp/old OLD`) and reports both times and whether results.json
is the same (`seconds` aside). --memory A,B grades classes of A and B submissions instead
and compares the parent's peak RSS (target: B=200 within 100 MB of A=10). --distinct ends every
file with a line naming its student, so that batch grades each one (it grades a file
byte-identical to one it already graded once, grader.grading.verdicts.Shared); --classroom lays
each student out as the release does (exercises/<id>/<id>.py), every written file distinct,
and leaves a third of a mixed class's unanswered exercises as the untouched starter.
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


def build(
    root: Path,
    size: int,
    ids: list[str],
    correct: bool = False,
    distinct: bool = False,
    classroom: bool = False,
) -> dict[str, int]:
    """Write `size` submissions under root; returns how many of each sort. classroom: each
    student's files as the release lays them out (exercises/<id>/<id>.py), every file of the
    student's own (as with distinct), and in a mixed class a third of the exercises of
    those who do not get everything right left as the untouched starter."""
    distinct = distinct or classroom
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
        if i % 25 == 24 and not correct:  # an empty folder: every exercise missing
            counts["empty"] += 1
            continue
        if i % 25 == 23 and not correct:
            counts["broken"] += 1
            for ex in ids:
                (sub / f"{ex}.py").write_text(BROKEN[kinds[(i // 25) % len(kinds)]])
            continue
        counts["mixed"] += 1
        for j, ex in enumerate(ids):
            right, wrong = pools[ex]
            # Every fifth student gets everything right; the others about half, cycling
            # through every variant and mutant.
            right_one = correct or i % 5 == 0 or (i + j) % 2 == 0
            if classroom:
                target = sub / "exercises" / ex / f"{ex}.py"
                target.parent.mkdir(parents=True)
                if not right_one and (i + j) % 3 == 0:  # not started: the starter as released
                    shutil.copyfile(ROOT / "exercises" / ex / f"{ex}.py", target)
                    continue
            pick = (
                right[(i + j) % len(right)]
                if right_one or not wrong
                else wrong[(i * 7 + j) % len(wrong)]
            )
            if not classroom:
                target = sub / ("src" if i % 3 == 0 else ".") / f"{ex}.py"  # some nest them
                target.parent.mkdir(exist_ok=True)
            shutil.copyfile(pick, target)
            if distinct:  # a line of the student's own: no two files of the class are the same
                with open(target, "a") as f:
                    f.write(f"\n# {sub.name}\n")
    return counts


def timed(cmd: list[str], cwd: Path = ROOT) -> tuple[float, subprocess.CompletedProcess]:
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.monotonic() - started, proc


def timed_rss(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess, float | None]:
    """Like timed, plus the process's own peak RSS in MB (VmHWM, Linux; its workers aside)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err)
        peak = None
        status = Path(f"/proc/{proc.pid}/status")
        while proc.poll() is None:
            try:
                for row in status.read_text().splitlines():
                    if row.startswith("VmHWM:"):
                        peak = int(row.split()[1]) / 1024
            except (OSError, ValueError, IndexError):
                pass
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(
            cmd,
            proc.returncode,
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )
    return elapsed, done, peak


def floor_seconds(repeat: int = 3) -> float:
    """The median time of `python -c "import torch, hypothesis"`."""
    times = [timed([sys.executable, "-c", "import torch, hypothesis"])[0] for _ in range(repeat)]
    return sorted(times)[len(times) // 2]


def check_outputs(out: Path, size: int) -> dict:
    doc = json.loads((out / "results.json").read_text())
    with open(out / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    junit = ET.parse(out / "junit.xml").getroot()
    gradescope = [json.loads(p.read_text()) for p in (out / "gradescope").glob("*/results.json")]
    if not (
        len(doc["submissions"])
        == len(rows)
        == len(junit.findall("testsuite"))
        == len(gradescope)
        == size
    ):
        raise SystemExit(f"outputs disagree on the number of submissions in {out}")
    for g in gradescope:
        if not isinstance(g["score"], (int, float)) or not all(
            {"name", "score", "max_score", "output", "visibility"} <= set(t) for t in g["tests"]
        ):
            raise SystemExit(f"a Gradescope file in {out} lacks a field")
    scores = [s["score"] for s in doc["submissions"]]
    failing = [
        c
        for s in doc["submissions"]
        for e in s["exercises"]
        if not e.get("untouched")
        for c in e["checks"]
        if c["status"] in ("failed", "error", "timeout") and not c["hidden"]
    ]
    summary = (out / "summary.md").read_text(encoding="utf-8")
    marker = "### Causes the class hit most often" if "Causes" in summary else "### Penyebab"
    causes = summary[summary.index(marker) :].split("###")[1] if marker in summary else ""
    return {
        "testcases": len(junit.findall(".//testcase")),
        "full_marks": sum(s["score"] == s["max_score"] for s in doc["submissions"]),
        "mean_score": round(sum(scores) / len(scores), 2),
        "max_score": doc["submissions"][0]["max_score"],
        # The class's mistakes (issue 44): of the visible checks that did not pass in an
        # attempted exercise, how many carry a named mistake, and the causes summary.md lists.
        "failing_checks": len(failing),
        "named_mistakes": sum(bool(c.get("mistake")) for c in failing),
        "top_causes": [line for line in causes.splitlines() if line.startswith("| `")][:8],
    }


def memory(work: Path, args, ids: list[str]) -> int:
    """Peak RSS of the batch parent for two class sizes (the target: within 100 MB)."""
    sizes = [int(n) for n in args.memory.split(",")]
    report = {"exercises": ids, "jobs": args.jobs, "peak_rss_mb": {}, "seconds": {}}
    for size in sizes:
        counts = build(work / f"class{size}", size, ids, args.correct)
        seconds, run, peak = timed_rss(
            [
                sys.executable,
                "-m",
                "grader",
                "batch",
                str(work / f"class{size}"),
                "--jobs",
                str(args.jobs),
                "--exercises",
                *ids,
                "--out",
                str(work / f"out{size}"),
            ]
        )
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"batch exited {run.returncode}")
        report["peak_rss_mb"][size] = peak and round(peak, 1)
        report["seconds"][size] = round(seconds, 1)
        report.setdefault("class", {})[size] = counts
    peaks = list(report["peak_rss_mb"].values())
    if None not in peaks:
        grew = peaks[-1] - peaks[0]
        report["growth_mb"] = round(grew, 1)
        report["target"] = f"<= 100 MB ({'met' if grew <= 100 else 'not met'})"
    print(json.dumps(report, indent=2))
    return 0


def results(out: Path):
    """results.json without the figures that differ from run to run (seconds, the grader's
    version string)."""

    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in ("seconds", "grader")}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(json.loads((out / "results.json").read_text()))


def files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--exercises", nargs="+", metavar="ID")
    p.add_argument("--twice", action="store_true", help="grade again and compare the outputs")
    p.add_argument(
        "--correct",
        action="store_true",
        help="every student answers everything right (target 0.2x the floor)",
    )
    p.add_argument(
        "--memory",
        metavar="A,B",
        help="grade classes of A and B submissions and compare the parent's peak RSS",
    )
    p.add_argument(
        "--distinct",
        action="store_true",
        help="end every file with a comment naming its student, so that no two files are "
        "byte-identical (batch grades a file identical to one it graded once, "
        "grader.grading.verdicts.Shared)",
    )
    p.add_argument(
        "--classroom",
        action="store_true",
        help="the release's layout (exercises/<id>/<id>.py), every written file the "
        "student's own, a third of a mixed class's exercises left as the untouched starter",
    )
    p.add_argument(
        "--keep", type=Path, help="build the class here and keep it (default: a temporary folder)"
    )
    p.add_argument(
        "--before",
        type=Path,
        metavar="TREE",
        help="also grade the class with the grader in TREE (an older checkout), "
        "first, and compare the time and the results (seconds aside)",
    )
    args = p.parse_args()
    ids = exercise_ids(args.exercises)
    work = args.keep or Path(tempfile.mkdtemp(prefix="grader-class-"))
    try:
        if args.memory:
            return memory(work, args, ids)
        counts = build(work / "class", args.size, ids, args.correct, args.distinct, args.classroom)
        batch = [
            sys.executable,
            "-m",
            "grader",
            "batch",
            str(work / "class"),
            "--jobs",
            str(args.jobs),
            "--exercises",
            *ids,
            "--out",
        ]
        floor = floor_seconds()
        before = None
        if args.before:
            before = timed(batch + [str(work / "out_before")], cwd=args.before.resolve())
            if before[1].returncode != 0:
                print(before[1].stdout[-3000:], before[1].stderr[-3000:], file=sys.stderr)
                raise SystemExit(f"the batch of {args.before} exited {before[1].returncode}")
        check_s, check = timed(
            [sys.executable, "-m", "grader", "check", *ids, "--submission", str(SOLUTIONS)]
        )
        batch_s, run, peak = timed_rss(batch + [str(work / "out1")])
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"batch exited {run.returncode}")
        target = 0.2 if args.correct else 0.4
        per = batch_s / args.size / floor
        report = {
            "exercises": ids,
            "submissions": args.size,
            "class": counts,
            "jobs": args.jobs,
            "batch_seconds": round(batch_s, 1),
            "submissions_per_minute": round(60 * args.size / batch_s, 1),
            "import_floor_seconds": round(floor, 2),
            "per_submission_over_floor": round(per, 2),
            "target": f"<= {target}x ({'met' if per <= target else 'not met'})",
            "check_solutions_seconds": round(check_s, 1),
            "check_over_floor": round(check_s / floor, 1),
            "check_exit_code": check.returncode,
            "batch_over_check": round(batch_s / check_s, 1),
            "parent_peak_rss_mb": peak and round(peak, 1),
            "outputs": check_outputs(work / "out1", args.size),
        }
        if before is not None:
            report["before_seconds"] = round(before[0], 1)
            report["before_over_now"] = round(before[0] / batch_s, 2)
            report["same_results_as_before"] = results(work / "out_before") == results(
                work / "out1"
            )
        if args.twice:
            again_s, _ = timed(batch + [str(work / "out2")])
            report["second_batch_seconds"] = round(again_s, 1)
            report["identical"] = files(work / "out1") == files(work / "out2")
        print(json.dumps(report, indent=2))
        return (
            0
            if report.get("identical", True) and report.get("same_results_as_before", True)
            else 1
        )
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

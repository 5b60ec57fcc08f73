"""Does a visible check give a mutant the same verdict under the public seed and the grading seed?

    python benchmarks/seed_agreement.py [--exercise ID ...] [--save FILE] [--load FILE]

A student runs the visible checks with the public seed (config.yaml `seed`, the examples their
release records); the teacher's batch grades with the grading seed (`grading_seed`, or
$GRADER_GRADING_SEED). Where a check's point is an edge (a tie, a subnormal, equal values) that
only one seed draws, a wrong answer passes on one side and fails on the other. This grades every
mutant of solutions/mutants/ on the visible checks twice, once with each seed, and counts the
disagreements: (mutant, check) pairs where one seed passes the check and the other does not
(failed, error and timeout all count as not passing).

Prints per exercise: mutants, (mutant, check) pairs compared, disagreements and seconds; then each
disagreement with the statuses on both sides. Exits 1 when there is any. Slow over the whole course
on a busy machine: run it per exercise (`--exercise ID`), in the background, with a timeout;
`--save` keeps the verdicts as JSON and `--load` reads saved ones, merged, to print the table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.grading.grade import grade_exercise  # noqa: E402
from grader.loader import specfile  # noqa: E402
from grader.loader.config import grading_seed, load_or_default  # noqa: E402
from grader.sandbox.client import Sandbox  # noqa: E402


def verdicts(exercise, file: Path, config, sandbox) -> dict[str, str]:
    """The visible checks' statuses for one answer file, by check id."""
    tmp = Path(tempfile.mkdtemp(prefix="seed-agreement-"))
    try:
        shutil.copyfile(file, tmp / exercise.file)
        result = grade_exercise(
            exercise=exercise,
            submission_dir=tmp,
            config=config,
            sandbox=sandbox,
            include_hidden=False,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {c.id: c.status for c in result.checks if not c.hidden}


def disagreements(public: dict, grading: dict) -> list[tuple[str, str, str]]:
    """(check, public status, grading status) where exactly one side passes the check. A check
    missing on one side (the whole exercise failed to import, say) counts as not passing."""
    out = []
    for cid in sorted(set(public) | set(grading)):
        a, b = public.get(cid, "missing"), grading.get(cid, "missing")
        if (a == "passed") != (b == "passed"):
            out.append((cid, a, b))
    return out


def grade_exercises(ids: list[str], config) -> dict:
    """{exercise: {"seconds": s, "mutants": {mutant: {"public": {...}, "grading": {...}}}}}."""
    seeds = {"public": config.seed, "grading": grading_seed(config)[0]}
    out: dict = {}
    with Sandbox() as sandbox:
        sandbox.start()
        for exercise_id in ids:
            exercise = specfile.load(ROOT / "exercises" / exercise_id / "exercise.yaml", root=ROOT)
            started = time.monotonic()
            rows = {}
            for mutant in sorted((ROOT / "solutions" / "mutants" / exercise_id).glob("*.py")):
                rows[mutant.stem] = {
                    side: verdicts(exercise, mutant, config.with_overrides(seed=seed), sandbox)
                    for side, seed in seeds.items()
                }
            out[exercise_id] = {"seconds": time.monotonic() - started, "mutants": rows}
            print(_line(exercise_id, out[exercise_id]), flush=True)
    return out


def _line(exercise_id: str, data: dict) -> str:
    rows = data["mutants"]
    pairs = sum(len(set(r["public"]) | set(r["grading"])) for r in rows.values())
    differ = sum(len(disagreements(r["public"], r["grading"])) for r in rows.values())
    return f"{exercise_id:22} {len(rows):7} {pairs:7} {differ:8} {data['seconds']:8.0f}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--exercise", nargs="+", metavar="ID", help="these exercises (default: all)")
    p.add_argument("--save", type=Path, help="write the verdicts here (JSON)")
    p.add_argument("--load", nargs="+", type=Path, help="read verdicts --save wrote, grade none")
    args = p.parse_args()
    config = load_or_default(ROOT / "config.yaml")
    order = [
        line.strip()
        for line in (ROOT / "exercises" / "ORDER").read_text().splitlines()
        if line.strip()
    ]
    print(f"public seed {config.seed}, grading seed {grading_seed(config)[0]}")
    print(f"{'exercise':22} {'mutants':>7} {'checks':>7} {'disagree':>8} {'seconds':>8}")
    if args.load:
        data: dict = {}
        for path in args.load:
            data.update(json.loads(path.read_text()))
        for exercise_id, row in data.items():
            print(_line(exercise_id, row))
    else:
        data = grade_exercises(args.exercise or order, config)
        if args.save:
            args.save.write_text(json.dumps(data, indent=1))
    total = 0
    for exercise_id, row in data.items():
        for mutant, r in row["mutants"].items():
            for cid, a, b in disagreements(r["public"], r["grading"]):
                total += 1
                print(f"  {exercise_id}/{mutant} {cid}: public {a}, grading {b}")
    print(f"disagreements: {total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())

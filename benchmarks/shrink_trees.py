"""Grade every mutant of the course three times in one process and compare.

    python benchmarks/shrink_trees.py [--examples 15] [IDS ...]

1. hypothesis alone (GRADER_REPLAY=off);
2. replayed, with the trees of hypothesis's runs growing as the mutants are graded in turn
   (grader.grading.shrinks: a mutant walks what the ones before it left);
3. once more, on the trees all of them left.

Prints, per exercise, the seconds of each pass (running totals), the steps the trees hold and
any mutant whose results differ between the passes (`seconds` aside); the last line lists them
all (the tree is right only where it is empty). Hidden checks are graded too. Not a timed test:
run it on a quiet machine and compare the passes of one run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.grading import examples  # noqa: E402
from grader.grading.grade import grade  # noqa: E402
from grader.loader import specfile  # noqa: E402
from grader.loader.config import Config, load_or_default  # noqa: E402
from grader.sandbox.client import Sandbox  # noqa: E402

PASSES = ("alone", "growing", "walked")


def verdicts(result) -> dict:
    out = dataclasses.asdict(result)
    for ex in out["exercises"]:
        ex.pop("seconds", None)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("ids", nargs="*", metavar="ID")
    p.add_argument("--examples", type=int, help="examples per check (default: config.yaml's)")
    args = p.parse_args()
    config = load_or_default(ROOT / "config.yaml")
    if args.examples:
        config = Config(examples=args.examples, time_per_call=2.0, time_per_exercise=60.0)
    ids = args.ids or sorted(p.parent.name for p in (ROOT / "exercises").glob("*/exercise.yaml"))
    os.environ["GRADER_CACHE"] = "off"
    tmp = Path(tempfile.mkdtemp(prefix="shrink-trees-"))
    sandbox = Sandbox()
    totals = dict.fromkeys(PASSES, 0.0)
    differ = []
    for exercise_id in ids:
        exercise = specfile.load(ROOT / "exercises" / exercise_id / "exercise.yaml")
        subs = {}
        for mutant in sorted((ROOT / "solutions" / "mutants" / exercise_id).glob("*.py")):
            sub = tmp / exercise_id / mutant.stem
            sub.mkdir(parents=True)
            (sub / f"{exercise_id}.py").write_bytes(mutant.read_bytes())
            subs[mutant.stem] = sub
        results: dict[str, dict] = {}
        for name in PASSES:
            if name == "alone":
                os.environ["GRADER_REPLAY"] = "off"
            else:
                os.environ.pop("GRADER_REPLAY", None)
            started = time.monotonic()
            results[name] = {
                mutant: verdicts(
                    grade(
                        submission_dir=sub,
                        exercises=[exercise],
                        config=config,
                        sandbox=sandbox,
                        name=mutant,
                        include_hidden=True,
                    )
                )
                for mutant, sub in subs.items()
            }
            totals[name] += time.monotonic() - started
        for mutant in subs:
            if (
                not results["alone"][mutant]
                == results["growing"][mutant]
                == results["walked"][mutant]
            ):
                differ.append(f"{exercise_id}/{mutant}")
                print(f"DIFFERS: {exercise_id}/{mutant}", flush=True)
        steps = sum(d.steps for d in examples.held())
        shown = ", ".join(f"{k} {v:.1f} s" for k, v in totals.items())
        print(f"{exercise_id}: {len(subs)} mutants; {shown}; {steps} steps", flush=True)
    print(f"differ: {differ}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())

"""Batch's shrink budget (config.yaml shrink_budget) against a full shrink (issue 45).

    python benchmarks/shrink_budget.py [N]

Builds a class of N (default 6) mixed submissions, the whole course (a mutant for two
exercises in three, a different one per student, the answer key for the rest), and grades it
as batch does (hidden checks, the grading seed) in one process, with the budget and without,
alternately (bounded, full, full, bounded), the examples and the trees of runs forgotten before
each grading. Prints each grading's wall time, the grader's CPU and how many checks the budget
cut, and whether the statuses and points are the same (they must be).
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.grading import checkrun, examples  # noqa: E402
from grader.grading.grade import grade  # noqa: E402
from grader.loader import config as config_mod  # noqa: E402
from grader.loader import specfile  # noqa: E402
from grader.sandbox.client import Sandbox  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    exercises = specfile.discover(ROOT / "exercises", root=ROOT)
    config = config_mod.load_or_default(None)
    config = config.with_overrides(seed=config_mod.grading_seed(config)[0])
    tmp = Path(tempfile.mkdtemp(prefix="grader-shrink-budget-"))
    for s in range(n):
        folder = tmp / f"s{s}"
        folder.mkdir()
        for e in exercises:
            mutants = sorted((ROOT / "solutions" / "mutants" / e.id).glob("*.py"))
            wrong = mutants and (s + len(e.id)) % 3
            source = (
                mutants[(s * 7 + len(e.id)) % len(mutants)]
                if wrong
                else ROOT / "solutions" / f"{e.id}.py"
            )
            shutil.copy(source, folder / f"{e.id}.py")
    cuts = [0]
    real = checkrun.over_budget

    def counted(made, index, budget):
        over = real(made, index, budget)
        cuts[0] += bool(over)
        return over

    checkrun.over_budget = counted

    def graded(sandbox, bounded: bool):
        examples.forget()
        cuts[0] = 0
        chosen = dataclasses.replace(config, bounded_shrink=bounded)
        wall, cpu = time.perf_counter(), time.process_time()
        results = [
            grade(
                submission_dir=tmp / f"s{s}",
                exercises=exercises,
                config=chosen,
                sandbox=sandbox,
                include_hidden=True,
            )
            for s in range(n)
        ]
        verdicts = [
            (e.id, c.id, c.status, c.points)
            for r in results
            for e in r.exercises
            for c in e.checks
        ]
        return time.perf_counter() - wall, time.process_time() - cpu, cuts[0], verdicts

    seen = {}
    try:
        with Sandbox().start() as sandbox:
            for bounded in (True, False, False, True):
                wall, cpu, cut, verdicts = graded(sandbox, bounded)
                seen.setdefault(bounded, verdicts)
                print(
                    f"{'bounded' if bounded else 'full':<8} {wall:7.1f} s wall  {cpu:6.1f} s "
                    f"grader CPU  {cut} check(s) cut",
                    flush=True,
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("the same statuses and points:", seen[True] == seen[False])


if __name__ == "__main__":
    main()

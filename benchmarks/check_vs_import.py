"""One student's costs, as ratios to `python -c "import torch, hypothesis"` measured in the same run.

    python benchmarks/check_vs_import.py [--repeat 5] [--no-cold] [--no-watch] [--release]
                                         [--portable] [IDS ...]

Prints, each as a median and a ratio to the import floor (issue 15's targets in brackets):
- warm: `python -m grader check --submission solutions`, repeated in place   [<= 1.5x]
  (unchanged files show their kept verdicts, grader/verdicts.py)
- warm, --fresh: the same with every exercise graded again (examples and references replayed
  from the cache, grader/examples.py)                                         [no target]
- cold: the same in a fresh copy of the tracked files (no __pycache__, no .hypothesis) with an
  empty GRADER_CACHE (grader/speccache.py), once per repeat: the course's committed examples
  (exercises/<id>/examples.drawn, grader/loader/committed.py) are all it finds    [<= 3x]
- watch: the time from a save to one exercise's verdict in a warm process (the sandbox
  started, torch and the specs loaded, as `grader watch` keeps them), per exercise, plus
  half of watch's 0.5 s polling interval                          [median <= 1 s, worst <= 2 s]
- --release: a student's first `python -m grader check` in the released course (`grader
  release`, the answer keys copied over the starters), a fresh copy with an empty cache: it
  judges with the recorded examples (grader/grading/recorded.py), drawing none   [<= 3x]
- --portable: `check --fresh` with portable workers (Windows' mode, GRADER_SANDBOX=portable)
  against fork mode's                                                   [<= 2x fork mode's]
  and, unless --no-cold, the cold check with portable workers against fork mode's cold one
  (with --before, the other tree's portable check too)
- --changed: a student's check of the answer key right after one exercise's file changed (a
  comment appended, a different exercise each repeat; the others show their kept verdicts),
  in a copy of the answer keys laid out a folder per exercise as a working copy is (in one
  flat folder every file is beside every other, so one change grades them all)    [<= 1.5x]
- --one-at-a-time: `check --fresh` and the released course's first check also with
  GRADER_AT_ONCE=1 (one exercise at a time, as before grader.common.turns), alternately

Both commands run alternately (the machines are shared and noisy). `GRADER_CACHE=off python
benchmarks/check_vs_import.py` measures without the cache of passed reference trials.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLL = 0.5  # grader.cli.watch's default interval: a save waits half of it on average


def timed(cmd: list[str], cwd: Path = ROOT, env: dict | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr.decode()}")
    return elapsed


def fresh_copy(into: Path, tree: Path = ROOT) -> Path:
    """The tracked files only, as a fresh clone has them (no caches, no compiled files); of a
    tree that is no git checkout (`git archive` of an older commit), every file but those."""
    if not (tree / ".git").exists():
        ignore = shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache")
        shutil.copytree(tree, into, ignore=ignore)
        return into
    names = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, names):
        src = ROOT / name
        if src.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, into / name)
    return into


def released_course(into: Path, tree: Path = ROOT) -> Path:
    """The course as `python -m grader release` writes it (from `tree`), with the answer keys
    copied over the starters (as .ci/release-course does): what a student's working copy holds
    once done."""
    done = subprocess.run(
        [sys.executable, "-m", "grader", "release", str(into)], cwd=tree, capture_output=True
    )
    if done.returncode != 0:
        sys.exit(f"the release failed:\n{done.stderr.decode()}")
    for line_ in (into / "exercises" / "ORDER").read_text().split():
        shutil.copyfile(
            tree / "solutions" / f"{line_}.py", into / "exercises" / line_ / f"{line_}.py"
        )
    return into


WATCH = """
import json, statistics, sys, time
from pathlib import Path
import torch
from grader.loader import config as config_mod, specfile
from grader.grading.grade import grade
from grader.sandbox.client import Sandbox
root = Path.cwd()
ids = sys.argv[1:]
config = config_mod.load_or_default(None)
exercises = specfile.discover(root / "exercises", root=root)
chosen = [e for e in exercises if not ids or e.id in ids]
sandbox = Sandbox().start()
try:
    grade(submission_dir=root / "solutions", exercises=chosen, config=config,
          sandbox=sandbox)  # watch's first run: every exercise, its examples now in memory
    times = {}
    for ex in chosen:
        start = time.perf_counter()
        grade(submission_dir=root / "solutions", exercises=[ex], config=config, sandbox=sandbox)
        times[ex.id] = time.perf_counter() - start
finally:
    sandbox.close()
print(json.dumps(times))
"""


def watch_times(ids: list[str]) -> dict[str, float]:
    import json

    done = subprocess.run(
        [sys.executable, "-c", WATCH, *ids], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"the watch measurement failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_check(course: Path, env: dict, ids: list[str]) -> float:
    """A student's first `python -m grader check` in a fresh copy of `course`, with an empty
    cache of its own (env: the environment besides GRADER_CACHE)."""
    with tempfile.TemporaryDirectory(prefix="grader-cold-") as tmp:
        copy = Path(tmp) / "course"
        shutil.copytree(course, copy)
        return timed(
            [sys.executable, "-m", "grader", "check", *ids],
            cwd=copy,
            env=dict(env, GRADER_CACHE=str(Path(tmp) / "cache")),
        )


def line(label: str, times: list[float], floor: float, target: float | None) -> str:
    m = statistics.median(times)
    ratio = m / floor
    verdict = (
        "no target"
        if target is None
        else f"target <= {target:g}x  {'MET' if ratio <= target else 'not met'}"
    )
    return (
        f"{label:<26}: median {m:6.2f} s  ratio {ratio:4.1f}x  {verdict}  "
        f"({', '.join(f'{t:.2f}' for t in times)})"
    )


def against_fork(label: str, times: list[float], fork_times: list[float], target) -> str:
    """A portable-mode line: its median as a ratio to fork mode's, measured in the same run."""
    fork, portable = statistics.median(fork_times), statistics.median(times)
    verdict = (
        "no target"
        if target is None
        else f"target <= {target:g}x  {'MET' if portable <= target * fork else 'not met'}"
    )
    return (
        f"{label:<26}: median {portable:6.2f} s  {portable / fork:4.1f}x fork mode's  "
        f"{verdict}  ({', '.join(f'{t:.2f}' for t in times)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-cold", action="store_true", help="skip the fresh-copy runs")
    parser.add_argument("--no-watch", action="store_true", help="skip the watch measurement")
    parser.add_argument(
        "--before",
        type=Path,
        metavar="TREE",
        help="also time the check (and --fresh, and with --release its released course) in "
        "another tree (e.g. `git archive` of an older commit), alternately, for a "
        "before/after in one run",
    )
    parser.add_argument(
        "--release",
        action="store_true",
        help="also time a student's first `python -m grader check --fresh` in the released "
        "course (answer keys copied over the starters; a fresh copy, an empty cache)",
    )
    parser.add_argument(
        "--portable",
        action="store_true",
        help="also time check --fresh with portable workers (GRADER_SANDBOX=portable), "
        "target <= 2x fork mode's",
    )
    parser.add_argument(
        "--one-at-a-time",
        action="store_true",
        help="also time check --fresh (and --release's check) with GRADER_AT_ONCE=1",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="also time a check right after one exercise's file changed (target <= 1.5x)",
    )
    parser.add_argument("ids", nargs="*")
    args = parser.parse_args()
    baseline = [sys.executable, "-c", "import torch, hypothesis"]
    check = [sys.executable, "-m", "grader", "check", *args.ids, "--submission", "solutions"]
    fresh = check[:4] + ["--fresh"] + check[4:]
    base_times, warm_times, fresh_times, cold_times, before_times = [], [], [], [], []
    release_times, portable_times, portable_cold = [], [], []
    before_fresh, before_release, before_cold = [], [], []
    one_fresh, one_release = [], []
    changed_times, before_changed, before_portable = [], [], []
    changes = tempfile.TemporaryDirectory(prefix="grader-changed-") if args.changed else None
    run_token = os.urandom(6).hex()
    if changes is not None:
        student = Path(changes.name) / "student"
        for key in (ROOT / "solutions").glob("*.py"):  # the answer keys, a folder each as in
            (student / key.stem).mkdir(parents=True)  # a working copy (the .py files beside
            shutil.copy2(key, student / key.stem / key.name)  # one are part of its verdict)
        files = sorted(p for p in student.glob("*/*.py") if not args.ids or p.stem in args.ids)
        changed_check = check[:-1] + [str(student)]
        timed(changed_check)  # every verdict kept
        if args.before:
            timed(changed_check, cwd=args.before.resolve())
    one = dict(os.environ, GRADER_AT_ONCE="1")
    timed(check)  # the first in-place run fills the caches: "warm" means repeated
    if args.before:
        timed(check, cwd=args.before.resolve())  # the other tree's caches, as warm
    released = tempfile.TemporaryDirectory(prefix="grader-release-") if args.release else None
    if released is not None:
        student = released_course(Path(released.name) / "course")
        if args.before:
            old = released_course(Path(released.name) / "before", args.before.resolve())
    for n in range(args.repeat):
        base_times.append(timed(baseline))
        if changes is not None:
            for tree, times in [(ROOT, changed_times)] + (
                [(args.before.resolve(), before_changed)] if args.before else []
            ):
                with open(files[n % len(files)], "a") as f:
                    # one exercise to grade, the rest kept; a line of this run's own: a file
                    # an earlier run (same grader, same cache) graded would show its kept verdict
                    f.write(f"# changed {n} {run_token}\n")
                times.append(timed(changed_check, cwd=tree))
        warm_times.append(timed(check))
        fresh_times.append(timed(fresh))
        if args.one_at_a_time:
            one_fresh.append(timed(fresh, env=one))
        if args.before:
            before_times.append(timed(check, cwd=args.before.resolve()))
            before_fresh.append(timed(fresh, cwd=args.before.resolve()))
        if not args.no_cold:
            with tempfile.TemporaryDirectory(prefix="grader-cold-") as tmp:
                copy = fresh_copy(Path(tmp) / "clone")  # and an empty cache of its own
                env = dict(os.environ, GRADER_CACHE=str(Path(tmp) / "cache"))
                cold_times.append(timed(check, cwd=copy, env=env))
                if args.portable:  # the same fresh clone, its cache emptied again
                    shutil.rmtree(Path(tmp) / "cache", ignore_errors=True)
                    env = dict(env, GRADER_SANDBOX="portable")
                    portable_cold.append(timed(check, cwd=copy, env=env))
            if args.before:
                with tempfile.TemporaryDirectory(prefix="grader-cold-") as tmp:
                    copy = fresh_copy(Path(tmp) / "clone", args.before.resolve())
                    env = dict(os.environ, GRADER_CACHE=str(Path(tmp) / "cache"))
                    before_cold.append(timed(check, cwd=copy, env=env))
        if args.portable:
            env = dict(os.environ, GRADER_SANDBOX="portable")
            portable_times.append(timed(fresh, env=env))
            if args.before:
                before_portable.append(timed(fresh, cwd=args.before.resolve(), env=env))
        if released is not None:
            release_times.append(first_check(student, os.environ, args.ids))
            if args.before:
                before_release.append(first_check(old, os.environ, args.ids))
            if args.one_at_a_time:
                one_release.append(first_check(student, one, args.ids))
    if released is not None:
        released.cleanup()
    floor = statistics.median(base_times)
    print(
        f"{'import torch, hypothesis':<26}: median {floor:6.2f} s  (the floor; "
        f"{', '.join(f'{t:.2f}' for t in base_times)})"
    )
    if before_times:
        print(line("before: check", before_times, floor, None))
    print(line("check solutions, warm", warm_times, floor, 1.5))
    print(line("check --fresh, warm", fresh_times, floor, None))
    if one_fresh:
        print(line("  the same, one at a time", one_fresh, floor, None))
    if before_fresh:
        print(line("  before: check --fresh", before_fresh, floor, None))
    if cold_times:
        print(line("check solutions, cold", cold_times, floor, 3))
    if before_cold:
        print(line("  before: check, cold", before_cold, floor, None))
    if release_times:
        print(line("released course, cold", release_times, floor, 3))
    if one_release:
        print(line("  the same, one at a time", one_release, floor, None))
    if before_release:
        print(line("  before: released course", before_release, floor, None))
    if portable_times:
        print(against_fork("check --fresh, portable", portable_times, fresh_times, 2))
    if before_portable:
        print(against_fork("  before: portable", before_portable, before_fresh, None))
    if portable_cold:
        print(against_fork("check, cold, portable", portable_cold, cold_times, None))
    if changed_times:
        print(line("one exercise changed", changed_times, floor, 1.5))
    if before_changed:
        print(line("  before: one changed", before_changed, floor, None))
    if changes is not None:
        changes.cleanup()
    if not args.no_watch:
        times = watch_times(args.ids)
        seen = sorted(t + POLL / 2 for t in times.values())
        med, worst = statistics.median(seen), seen[-1]
        slowest = max(times, key=times.get)
        print(
            f"{'watch, save to verdict':<26}: median {med:6.2f} s  worst {worst:.2f} s "
            f"({slowest})  target median <= 1 s, worst <= 2 s  "
            f"{'MET' if med <= 1 and worst <= 2 else 'not met'}"
        )
        for ex_id, t in times.items():
            print(f"    {ex_id:<24} {t + POLL / 2:6.2f} s")


if __name__ == "__main__":
    main()

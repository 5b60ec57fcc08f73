"""A class of GitHub Classroom clones of the real release, answers split between the .py files
and the notebooks, graded with `batch --deadline`: does every student get the score their
answers deserve, and how long does it take?

    python benchmarks/term_class.py [--size 30] [--template DIR] [--keep DIR]

The course is released (`python -m grader release`, committed as the template; --template
reuses a release already committed), then cloned once per student (tests/term.py, as
tests/test_term.py builds its smaller class). Student k answers exercise n (in the course's
order) by a pattern of k: in the .py, in the notebook, in both (the .py graded), left as
released, or with a syntax error; each answer is the key, with a line naming the student so that
no two files are alike. A quarter of the class commits half its answers on time and the rest
after the deadline (the on-time commit is graded). The expected score of each student is
computed from the patterns alone (the key earns every point of its exercise, a starter or a
syntax error none) and compared with results.json; the script prints the mismatches, the batch's
wall time and the time of `import torch, hypothesis` in the same run (the floor).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import term  # noqa: E402

from grader.loader import specfile  # noqa: E402

WAYS = ("py", "notebook", "both", "starter", "broken")


def way(student: int, exercise: int) -> str:
    return WAYS[(student + 2 * exercise) % len(WAYS)]


def answers(template: Path, k: int, ids: list[str]) -> tuple[dict[str, str], dict[str, float]]:
    """Student k's files and the points each exercise should earn (a fraction of its max)."""
    files: dict[str, str] = {}
    earns: dict[str, float] = {}
    for n, exercise in enumerate(ids):
        mine = term.key(exercise) + f"\n\nPEMILIK = 'siswa{k:02d}'\n"
        how = way(k, n)
        if how in ("py", "both"):
            files[term.py(exercise)] = mine
        if how in ("notebook", "both"):
            files[term.nb(exercise)] = term.in_notebook(template, exercise, mine)
        if how == "broken":
            files[term.py(exercise)] = term.syntax_error(mine)
        earns[exercise] = 1.0 if how in ("py", "notebook", "both") else 0.0
    return files, earns


def build(template: Path, klass: Path, size: int) -> dict[str, dict[str, float]]:
    ids = term.course(template)
    people, expected = {}, {}
    for k in range(size):
        files, earns = answers(template, k, ids)
        login = f"siswa{k:02d}"
        if k % 4 == 3:  # half on time, the rest late: the on-time half is graded
            names = sorted(files)
            early = {n: files[n] for n in names[: len(names) // 2]}
            commits = [(term.ON_TIME, early), (term.LATE, files)]
            earns = {
                e: v if any(f"/{e}." in n or f"/{e}/" in n for n in early) else 0.0
                for e, v in earns.items()
            }
        else:
            commits = [(term.ON_TIME, files)] if files else []
        people[login] = term.Student(login, commits)
        expected[login] = earns
    term.build_class(template, klass, people)
    return expected


def floor() -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "import torch, hypothesis"], check=True)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=30)
    parser.add_argument("--template", type=Path, help="a release already committed")
    parser.add_argument("--keep", type=Path, help="build the class and outputs here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="term-class-"))
    work.mkdir(parents=True, exist_ok=True)
    template = args.template or term.release(work / "template")
    expected = build(template, work / "class", args.size)
    maxima = {e.id: e.max_points for e in specfile.discover(ROOT / "exercises", root=ROOT)}
    base = floor()
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "grader", "batch", str(work / "class"), "--out", str(work / "out")]
        + ["--deadline", term.DEADLINE, "--lang", "en"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:])
        return 1
    results = json.loads((work / "out" / "results.json").read_text())["submissions"]
    wrong = []
    for r in results:
        login = r["submission"].rsplit("-", 1)[-1]
        want = {e: maxima[e] * f for e, f in expected[login].items()}
        got = {e["id"]: e["score"] for e in r["exercises"]}
        if got != want:
            wrong.append((login, {e: (got[e], want[e]) for e in want if got[e] != want[e]}))
    files = [e["file"] for r in results for e in r["exercises"]]
    print(
        f"{len(results)} students, {sum(f.endswith('.ipynb') for f in files)} exercises graded "
        f"from a notebook, {sum(f.endswith('.py') for f in files)} from a .py; "
        f"{len(results) - len(wrong)}/{len(results)} scored as their answers deserve"
    )
    for login, diff in wrong:
        print(f"  {login}: (got, expected) {diff}")
    print(
        f"batch --deadline: {seconds:.1f} s ({seconds / len(results):.2f} s a student); "
        f"floor (import torch, hypothesis) {base:.2f} s; per student {seconds / len(results) / base:.2f}x"
    )
    return 0 if not wrong else 1


if __name__ == "__main__":
    sys.exit(main())

"""Does the students' release judge the course's mutants as the teacher's grader does?

    python benchmarks/release_agreement.py [--release DIR] [--exercises ID ...] [--show N]

Releases the course to a temporary folder (or uses DIR, an existing release), then grades every
mutant and trivial answer of solutions/mutants/ (and the keys and variants, which must keep every
visible point on both sides) twice, on the visible checks only: once with the
teacher's grader (hypothesis with the config's public seed, shrinking, fresh draws to confirm a
named mistake) and once with the release's grader, run in the release (its recorded examples,
no reference code). For each answer it compares:

- points: the same score;
- checks: the same checks fail;
- cause: for every failing check, the same cause named. A message's cause is its text with the
  example's particulars taken out (numbers, tensors, indices, quoted values, which parameter or
  element, and the closing description of the example: the critic drawn, the formula of the
  test function): two messages name the same cause when those are equal, and so do the exception
  type and function (`cause` field). Strict: the same with only numbers, tensors and indices
  taken out.

It prints the figures per exercise and the answers whose messages differ (--show N of them, both
messages), and exits 1 when a score or a failing check differs.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"

DRIVER = r"""
import json, os, shutil, sys, tempfile
sys.path.insert(0, os.getcwd())
from pathlib import Path
from grader.loader import config as config_mod, specfile
from grader.grading.grade import grade_exercise
from grader.sandbox.client import Sandbox

plan = json.loads(Path(sys.argv[1]).read_text())
config = config_mod.load_or_default(Path("config.yaml") if Path("config.yaml").is_file() else None)
exercises = {e.id: e for e in specfile.discover(Path("exercises"), root=Path.cwd())}
sandbox = Sandbox()
sandbox.start()
out = {}
try:
    for key, (exercise_id, file) in plan.items():
        e = exercises[exercise_id]
        tmp = Path(tempfile.mkdtemp(prefix="agreement-"))
        try:
            shutil.copyfile(file, tmp / e.file)
            result = grade_exercise(exercise=e, submission_dir=tmp, config=config,
                                    sandbox=sandbox, include_hidden=False)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        out[key] = result
finally:
    sandbox.close()
rows = {}
for key, result in out.items():
    rows[key] = {"score": result.score, "checks": [
        {"id": c.id, "status": c.status, "points": c.points, "cause": c.cause,
         "message": c.message.en if c.message else None, "counterexample": c.counterexample}
        for c in result.checks]}
Path(sys.argv[2]).write_text(json.dumps(rows))
"""

_STRICT = [
    (re.compile(r"tensor\((?:[^()]|\([^()]*\))*\)"), "T"),
    (re.compile(r"\[[^\[\]]*\]"), ""),
    (re.compile(r"\[[^\[\]]*\]"), ""),
    (re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?inf\b|\bnan\b", re.I), "N"),
]
_EXAMPLE = [
    (re.compile(r" Critic: .*$", re.S), ""),  # the critic this example drew
    (re.compile(r"fn\(x, y\) = .*?(?=\. |\.$|; |$)"), "fn(x, y) = F"),  # its recipe
    (re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`"), "Q"),
    (re.compile(r"\b[A-Za-z_]\w*(?:\.\w+)+"), "P"),  # which parameter: model.0.weight.grad
    (re.compile(r"(?:N|None|nan|inf)(?:(?: of| and| or|,) N)*"), "N"),
]


def template(message: str | None, strict: bool = False) -> str:
    """The message with the example's particulars taken out: what names the cause."""
    text = message or ""
    for pattern, repl in _STRICT + ([] if strict else _EXAMPLE):
        text = pattern.sub(repl, text)
    return " ".join(text.split())


def _plan(exercises: list[str]) -> dict:
    """Every mutant (exercise/name) and every correct answer (exercise/+name: the key and the
    variants, which must keep every visible point in both)."""
    plan = {}
    for exercise_id in exercises:
        for path in sorted((SOLUTIONS / "mutants" / exercise_id).glob("*.py")):
            plan[f"{exercise_id}/{path.stem}"] = (exercise_id, str(path))
        plan[f"{exercise_id}/+key"] = (exercise_id, str(SOLUTIONS / f"{exercise_id}.py"))
        for path in sorted((SOLUTIONS / "variants" / exercise_id).glob("*.py")):
            plan[f"{exercise_id}/+{path.stem}"] = (exercise_id, str(path))
    return plan


def _grade(tree: Path, plan: dict, scratch: Path, name: str) -> dict:
    plan_file, out_file = scratch / f"{name}-plan.json", scratch / f"{name}-out.json"
    plan_file.write_text(json.dumps(plan))
    subprocess.run(
        [sys.executable, "-c", DRIVER, str(plan_file), str(out_file)], cwd=tree, check=True
    )
    return json.loads(out_file.read_text())


def compare(teacher: dict, release: dict) -> dict:
    """Per answer: (same score, same failing checks, checks with the same cause / failing)."""
    rows = {}
    for key, t in teacher.items():
        r = release[key]
        t_fail = {c["id"]: c for c in t["checks"] if c["status"] != "passed"}
        r_fail = {c["id"]: c for c in r["checks"] if c["status"] != "passed"}

        def same(cid, strict=False, t_fail=t_fail, r_fail=r_fail):
            return (
                cid in r_fail
                and t_fail[cid]["cause"] == r_fail[cid]["cause"]
                and template(t_fail[cid]["message"], strict)
                == template(r_fail[cid]["message"], strict)
            )

        same_cause = [cid for cid in t_fail if same(cid)]
        rows[key] = {
            "score": (t["score"], r["score"]),
            "same_score": t["score"] == r["score"],
            "same_checks": set(t_fail) == set(r_fail),
            "failing": len(t_fail),
            "same_cause": len(same_cause),
            "strict": sum(same(cid, True) for cid in t_fail),
            "differ": [
                (cid, t_fail[cid]["message"], r_fail.get(cid, {}).get("message"))
                for cid in t_fail
                if cid not in same_cause
            ],
        }
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--release", type=Path, help="an existing release (default: release now)")
    p.add_argument("--exercises", nargs="+", metavar="ID")
    p.add_argument("--show", type=int, default=10, help="differing messages to print")
    p.add_argument("--save", type=Path, help="write both sides' verdicts here (JSON)")
    p.add_argument("--load", type=Path, help="compare verdicts saved by --save, grading nothing")
    args = p.parse_args()
    order = [
        line.strip()
        for line in (ROOT / "exercises" / "ORDER").read_text().splitlines()
        if line.strip()
    ]
    chosen = args.exercises or order
    if args.load:
        teacher, released = json.loads(args.load.read_text())
    else:
        scratch = Path(tempfile.mkdtemp(prefix="release-agreement-"))
        try:
            release = args.release
            if release is None:
                release = scratch / "release"
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "grader",
                        "release",
                        str(release),
                        "--exercises",
                        *chosen,
                    ],
                    cwd=ROOT,
                    check=True,
                )
            plan = _plan(chosen)
            teacher = _grade(ROOT, plan, scratch, "teacher")
            released = _grade(release.resolve(), plan, scratch, "release")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if args.save:
            args.save.write_text(json.dumps([teacher, released]))
    correct = [k for k in teacher if k.split("/")[1].startswith("+")]
    full = [
        k
        for k in correct
        if not any(
            c["status"] != "passed" for side in (teacher, released) for c in side[k]["checks"]
        )
    ]
    rows = compare({k: v for k, v in teacher.items() if k not in correct}, released)
    print(
        f"correct answers (keys and variants) with every visible point in both: "
        f"{len(full)}/{len(correct)}" + "".join(f"\n  not: {k}" for k in correct if k not in full)
    )
    print(f"{'exercise':22} {'answers':>7} {'score':>7} {'checks':>7} {'cause':>9} {'strict':>9}")
    totals = [0, 0, 0, 0, 0, 0]
    for exercise_id in chosen:
        mine = [r for k, r in rows.items() if k.split("/")[0] == exercise_id]
        n = len(mine)
        score = sum(r["same_score"] for r in mine)
        checks = sum(r["same_checks"] for r in mine)
        cause = sum(r["same_cause"] for r in mine)
        failing = sum(r["failing"] for r in mine)
        strict = sum(r["strict"] for r in mine)
        for i, v in enumerate((n, score, checks, cause, failing, strict)):
            totals[i] += v
        print(
            f"{exercise_id:22} {n:7} {score:7} {checks:7} {cause:4}/{failing:<4} "
            f"{strict:4}/{failing:<4}"
        )
    n, score, checks, cause, failing, strict = totals
    print(f"{'all':22} {n:7} {score:7} {checks:7} {cause:4}/{failing:<4} {strict:4}/{failing:<4}")
    print(
        f"same score {score}/{n}, same failing checks {checks}/{n}, same cause named on "
        f"{cause}/{failing} failing checks ({cause / max(failing, 1):.1%}; strict "
        f"{strict / max(failing, 1):.1%})"
    )
    shown = 0
    for key, r in sorted(rows.items(), key=lambda kv: kv[1]["same_score"]):
        for cid, t_msg, r_msg in r["differ"]:
            if shown >= args.show:
                break
            shown += 1
            print(
                f"\n{key} {cid} (scores {r['score'][0]:g} / {r['score'][1]:g}):\n  teacher: "
                f"{(t_msg or '')[:400]}\n  release: {(r_msg or '')[:400]}"
            )
    return 0 if score == n and checks == n and len(full) == len(correct) else 1


if __name__ == "__main__":
    sys.exit(main())

"""A lookup table of everything the students' release asks: what does the teacher's batch give it?

    python benchmarks/lookup_attack.py --release DIR [--exercises ID ...]

The attack of issue 22, run for every exercise, as a student could:
1. In the release, grade a "recorder" in portable mode (GRADER_SANDBOX=portable, where a worker
   shares /tmp): each file is the answer key with every top-level function wrapped so that it
   appends (its arguments' fingerprint, its result) to a file in /tmp. The recorder is never
   submitted; it computes the right outputs as a student would offline (with autograd).
2. Build a "lookup" submission: each function looks its arguments up in the recorded table and
   returns the recorded result; anything else gets zeros shaped like the first tensor argument
   (no autograd, no formula).
3. Grade the lookup in the release (it should score well: that is what the attack buys locally)
   and in the teacher's `batch` (grading seed, hidden checks): it must score at most 10% there.

Prints, per exercise: the table's size, the lookup's share of points in the release and in the
teacher's batch, and exits 1 when any exercise scores over 10% in the batch.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
LIMIT = 0.10

FINGERPRINT = r"""
import hashlib as _hashlib
import torch as _torch


def _fingerprint(value, _depth=0):
    h = _hashlib.sha256()
    def walk(v, d):
        if d > 20:
            h.update(b"deep")
        elif isinstance(v, _torch.Tensor):
            t = v.detach().contiguous()
            h.update(f"T{t.dtype}{tuple(t.shape)}".encode())
            h.update(t.cpu().reshape(-1).view(_torch.uint8).numpy().tobytes() if t.numel() else b"")
        elif isinstance(v, _torch.nn.Module):
            h.update(type(v).__name__.encode())
            for p in v.parameters():
                walk(p, d + 1)
        elif isinstance(v, dict):
            for k in v:
                h.update(repr(k).encode())
                walk(v[k], d + 1)
        elif isinstance(v, (list, tuple)):
            h.update(f"L{len(v)}".encode())
            for x in v:
                walk(x, d + 1)
        elif isinstance(v, (int, float, str, bool)) or v is None:
            h.update(repr(v).encode())
        else:
            h.update(type(v).__name__.encode())
    walk(value, 0)
    return h.hexdigest()
"""

RECORDER = (
    FINGERPRINT
    + r"""
import io as _io, os as _os, inspect as _inspect


def _plain(v):
    if isinstance(v, _torch.Tensor):
        return v.detach().clone()
    if isinstance(v, (list, tuple)):
        return type(v)(_plain(x) for x in v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v if isinstance(v, (int, float, str, bool, type(None))) else None


def _record(name, fn):
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        try:
            buf = _io.BytesIO()
            _torch.save((name, _fingerprint((args, kwargs)), _plain(out)), buf)
            with open(TABLE, "ab") as f:
                f.write(len(buf.getvalue()).to_bytes(8, "little") + buf.getvalue())
        except Exception:
            pass
        return out
    wrapper.__name__ = fn.__name__
    return wrapper


for _name, _fn in list(globals().items()):
    if _inspect.isfunction(_fn) and _fn.__module__ == __name__ and not _name.startswith("_"):
        globals()[_name] = _record(_name, _fn)
"""
)

LOOKUP = (
    FINGERPRINT
    + r"""
import base64 as _base64, io as _io

_TABLE = _torch.load(_io.BytesIO(_base64.b64decode(DATA)), weights_only=True)


def _fallback(args):
    for a in args:
        if isinstance(a, _torch.Tensor):
            return _torch.zeros_like(a)
    return 0.0


def _lookup(name):
    def fn(*args, **kwargs):
        key = _fingerprint((args, kwargs))
        if key in _TABLE.get(name, {}):
            return _TABLE[name][key]
        return _fallback(args)
    fn.__name__ = name
    return fn


for _name in NAMES:
    globals()[_name] = _lookup(_name)
"""
)


def _functions(source: str) -> list[str]:
    import ast

    return [
        n.name
        for n in ast.parse(source).body
        if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
    ]


def _read_table(path: Path) -> dict:
    import io

    import torch

    table: dict = {}
    if not path.is_file():
        return table
    data = path.read_bytes()
    i = 0
    while i + 8 <= len(data):
        n = int.from_bytes(data[i : i + 8], "little")
        name, key, out = torch.load(io.BytesIO(data[i + 8 : i + 8 + n]), weights_only=True)
        table.setdefault(name, {})[key] = out
        i += 8 + n
    return table


def _share(result_json: Path) -> dict:
    data = json.loads(result_json.read_text())
    subs = data["submissions"] if "submissions" in data else [data]
    out = {}
    for sub in subs:
        for e in sub["exercises"]:
            out[e["id"]] = (e["score"], e["max_score"])
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--release", type=Path, required=True)
    p.add_argument("--exercises", nargs="+", metavar="ID")
    args = p.parse_args()
    release = args.release.resolve()
    order = [
        line.strip()
        for line in (release / "exercises" / "ORDER").read_text().splitlines()
        if line.strip()
    ]
    chosen = args.exercises or order
    scratch = Path(tempfile.mkdtemp(prefix="lookup-attack-"))
    tables = Path(tempfile.mkdtemp(prefix="lookup-tables-", dir="/tmp"))
    os.chmod(tables, 0o777)  # the release's workers may run as another user
    try:
        recorder = scratch / "recorder"
        lookup = scratch / "class" / "lookup"
        recorder.mkdir()
        lookup.mkdir(parents=True)
        for exercise_id in chosen:
            source = (SOLUTIONS / f"{exercise_id}.py").read_text()
            table = tables / f"{exercise_id}.bin"
            (recorder / f"{exercise_id}.py").write_text(
                source + f"\nTABLE = {str(table)!r}\n" + RECORDER
            )
        env = dict(os.environ, GRADER_SANDBOX="portable", GRADER_CACHE="off")
        env.pop("PYTHONPATH", None)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grader",
                "check",
                *chosen,
                "--submission",
                str(recorder),
                "--json",
                str(scratch / "recorder.json"),
                "--fresh",
            ],
            cwd=release,
            env=env,
            capture_output=True,
        )
        sizes = {}
        import io

        import torch

        for exercise_id in chosen:
            table = _read_table(tables / f"{exercise_id}.bin")
            sizes[exercise_id] = sum(len(v) for v in table.values())
            buf = io.BytesIO()
            torch.save(table, buf)
            names = _functions((SOLUTIONS / f"{exercise_id}.py").read_text())
            (lookup / f"{exercise_id}.py").write_text(
                f"DATA = {base64.b64encode(buf.getvalue()).decode()!r}\nNAMES = {names!r}\n"
                + LOOKUP
            )
        env = dict(os.environ, GRADER_CACHE="off")
        env.pop("PYTHONPATH", None)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grader",
                "check",
                *chosen,
                "--submission",
                str(lookup),
                "--json",
                str(scratch / "local.json"),
                "--fresh",
            ],
            cwd=release,
            env=env,
            capture_output=True,
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grader",
                "batch",
                str(scratch / "class"),
                "--out",
                str(scratch / "out"),
                "--exercises",
                *chosen,
            ],
            cwd=ROOT,
            env=dict(os.environ),
            capture_output=True,
            check=True,
        )
        local = _share(scratch / "local.json")
        teacher = _share(scratch / "out" / "results.json")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(tables, ignore_errors=True)
    print(f"{'exercise':22} {'table':>6} {'release (local)':>16} {'teacher batch':>14}")
    worst = 0.0
    for exercise_id in chosen:
        ls, lm = local.get(exercise_id, (0, 1))
        ts, tm = teacher.get(exercise_id, (0, 1))
        worst = max(worst, ts / tm)
        print(
            f"{exercise_id:22} {sizes[exercise_id]:6} {ls:7g}/{lm:<4g} {ls / lm:4.0%}"
            f" {ts:6g}/{tm:<4g} {ts / tm:4.0%}"
        )
    print(f"worst share in the teacher's batch: {worst:.0%} (limit {LIMIT:.0%})")
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())

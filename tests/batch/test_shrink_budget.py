"""`batch` bounds the shrink at config.yaml's shrink_budget: the scores and statuses are the ones
a full shrink gives, and results.json marks the counterexamples cut short (shrink_cut)."""

import dataclasses
import json
import shutil

from conftest import ROOT, SOLUTIONS

from grader.batch import run as batch
from grader.loader.config import Config

CONFIG = Config(examples=10, time_per_call=15.0, time_per_exercise=120.0)
MUTANTS = ["always_scales", "grad_none_crash"]
"""grad_clipping's mutants whose failures hypothesis finds among its drawn examples (a failing
edge, an explicit example, is not shrunk at all)."""


def test_batch_bounds_the_shrink_and_says_so_without_changing_a_score(tmp_path, exercises):
    subs = tmp_path / "class"
    for name in MUTANTS:
        (subs / name).mkdir(parents=True)
        shutil.copy(
            SOLUTIONS / "mutants" / "grad_clipping" / f"{name}.py",
            subs / name / "grad_clipping.py",
        )
    chosen = [exercises["grad_clipping"]]

    def graded(config, out) -> dict:
        batch.run(
            submissions_dir=subs,
            exercises=chosen,
            config=config,
            lang="en",
            root=ROOT,
            jobs=1,
            out=tmp_path / out,
        )
        data = json.loads((tmp_path / out / "results.json").read_text())
        return {
            (s["submission"], c["id"]): (c["status"], c["points"], c["shrink_cut"])
            for s in data["submissions"]
            for e in s["exercises"]
            for c in e["checks"]
        }

    cut = graded(dataclasses.replace(CONFIG, shrink_budget=2), "cut")
    full = graded(dataclasses.replace(CONFIG, shrink_budget=100000), "full")
    assert {k: v[:2] for k, v in cut.items()} == {k: v[:2] for k, v in full.items()}
    assert any(v[2] for v in cut.values()) and not any(v[2] for v in full.values())
    assert all(v[0] != "passed" for v in cut.values() if v[2])

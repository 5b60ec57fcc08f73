"""A cache entry a worker planted never changes another submission's grading (issue 25).

In a mode without namespaces a worker of a grader that is not root runs as the grader's user and
can write the cache folder
(speccache.folder()): drawn examples with their references, kept verdicts, tried references.
tests/hostile/key_plant_cache.py rewrites every entry it finds there (zero references, full-mark
verdicts, keeping each file's seal); a classmate's all-zeros answer graded afterwards must get
exactly the result it got before, and the answer key must keep full marks.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from conftest import SOLUTIONS, by_id

from grader.grading import examples
from grader.grading.grade import grade
from grader.sandbox import portable
from grader.sandbox.client import Sandbox

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
ZEROS = """import torch


def df(x):
    return torch.zeros_like(x)


def grad_g(x, y):
    return torch.zeros_like(x), torch.zeros_like(y)


def mlp_grads(x, y, W1, b1, W2, b2):
    return {k: torch.zeros_like(v) for k, v in dict(W1=W1, b1=b1, W2=W2, b2=b2).items()}


def autograd_df(x):
    return torch.zeros_like(x)
"""


@pytest.fixture(params=["no-namespaces", "portable"])
def shared_user_sandbox(request, monkeypatch):
    """A sandbox whose workers run as the grader's user and see its files."""
    if request.param == "portable":
        monkeypatch.setenv(portable.ENV, "portable")
        sandbox = Sandbox()
    else:
        sandbox = Sandbox(namespaces=False)
    with sandbox.start() as sb:
        yield sb


def _shown(result) -> list:
    ex = result["manual_gradient"]
    return [ex.status, ex.score, [dataclasses.replace(c) for c in ex.checks]]


def _files(cache: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in cache.rglob("*") if p.is_file()}


def test_a_planted_cache_entry_changes_no_other_submissions_grading(
    tmp_path, monkeypatch, shared_user_sandbox, exercises, fast_config
):
    cache = tmp_path / "cache"
    monkeypatch.setenv("GRADER_CACHE", str(cache))
    monkeypatch.setattr(
        examples, "_disk", True
    )  # as in `check` (a batch test may have turned it off)
    subs = {}
    for name, text in (
        ("key", (SOLUTIONS / "manual_gradient.py").read_text()),
        ("zeros", ZEROS),
        (
            "planter",
            (SOLUTIONS / "manual_gradient.py").read_text()
            + "\n\n"
            + (HOSTILE / "key_plant_cache.py").read_text().replace("CACHEPATH", str(cache)),
        ),
    ):
        subs[name] = tmp_path / name
        subs[name].mkdir()
        (subs[name] / "manual_gradient.py").write_text(text)
    chosen = [exercises["manual_gradient"]]

    def graded(name):
        examples.forget()  # a separate `check`: only the disk is shared
        result = grade(
            submission_dir=subs[name],
            exercises=chosen,
            config=fast_config,
            sandbox=shared_user_sandbox,
            remember=True,
        )
        return by_id(result)

    key_before = _shown(graded("key"))
    zeros_before = _shown(graded("zeros"))
    assert key_before[0] == "passed" and zeros_before[0] != "passed"
    before = _files(cache)
    assert any("examples" in p for p in before) and any("verdicts" in p for p in before)

    planter = graded("planter")["manual_gradient"]
    assert planter.status == "passed"  # the planter's own code is the answer key
    after = _files(cache)
    planted = after.pop(str(cache / "planted.txt"), b"").decode().split()
    changed = [p for p in planted if p.endswith(".pickle") and before.get(p) != after.get(p)]
    if os.geteuid() == 0:  # its worker runs as a user of its own: the cache is out of reach
        assert changed == [] and not planted, planted
    else:
        assert changed, "the worker could not rewrite the cache: the test shows nothing"

    assert _shown(graded("zeros")) == zeros_before
    assert _shown(graded("key")) == key_before

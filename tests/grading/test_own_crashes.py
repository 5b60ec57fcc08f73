"""What a submission's files do costs that submission only: one clear message for its exercise,
never exit 3 ("the grader's fault") or a traceback; and the grader leaves nothing in /tmp."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, run_grader

from grader.batch import run as batch
from grader.cli.main import main
from grader.grading import verdicts
from grader.loader.config import Config
from grader.submissions import notebook

DEEP = b'{"cells": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
"""A notebook of deeply nested JSON (a parser's recursion would fail on it)."""


def _sparse(path: Path, size: int = 8 * 2**30) -> Path:
    with open(path, "wb") as f:
        f.truncate(size)  # 8 GiB that take no disk
    return path


def _check(tmp_path, fast, capsys, ids, sub, monkeypatch) -> tuple[int, str]:
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))  # kept verdicts: key() runs
    code = main([*fast, "check", *ids, "--submission", str(sub)])
    return code, capsys.readouterr().out


def test_a_sparse_8_gib_exercise_file_is_its_exercise_s_error(tmp_path, fast, capsys, monkeypatch):
    sub = tmp_path / "sub"
    sub.mkdir()
    _sparse(sub / "manual_gradient.py")
    shutil.copyfile(SOLUTIONS / "custom_sigmoid.py", sub / "custom_sigmoid.py")
    code, out = _check(
        tmp_path, fast, capsys, ["manual_gradient", "custom_sigmoid"], sub, monkeypatch
    )
    assert code == 1, out
    assert "manual_gradient.py cannot be read" in out and "the limit is" in out
    assert "Traceback" not in out and "grader" not in out.split("cannot be read")[0][-40:]


def test_the_kept_verdict_key_reads_no_more_than_the_cap(tmp_path, exercises):
    _sparse(tmp_path / "manual_gradient.py")
    assert verdicts.key(exercises["manual_gradient"], tmp_path, Config(), False) is None
    _sparse(tmp_path / "manual_gradient.py", 2 * notebook.MAX_NOTEBOOK_BYTES)
    (tmp_path / "manual_gradient.py").rename(tmp_path / "manual_gradient.ipynb")
    assert verdicts.key(exercises["manual_gradient"], tmp_path, Config(), False) is None


def test_a_deeply_nested_notebook_cannot_be_read_and_says_so():
    with pytest.raises(notebook.NotebookError, match="more than 64 levels deep") as info:
        notebook.to_source(DEEP, "manual_gradient.ipynb")
    assert "manual_gradient.ipynb" in str(info.value) and "Download" in str(info.value)
    nested = (  # brackets in a string
        b'{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {"a": "'
        + b"[" * 5000
        + b'"}}'
    )
    assert notebook.to_source(nested) == "\n"


def test_a_deeply_nested_notebook_fails_its_exercise_in_check(tmp_path, fast, capsys, monkeypatch):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "manual_gradient.ipynb").write_bytes(DEEP)
    code, out = _check(tmp_path, fast, capsys, ["manual_gradient"], sub, monkeypatch)
    assert code == 1, out
    assert "This notebook cannot be read: manual_gradient.ipynb nests" in " ".join(out.split())
    assert "Traceback" not in out


def test_a_deeply_nested_notebook_costs_its_submission_only_in_batch(tmp_path, exercises):
    klass = tmp_path / "class"
    for name in ("deep", "key"):
        (klass / name).mkdir(parents=True)
    (klass / "deep" / "manual_gradient.ipynb").write_bytes(DEEP)
    _sparse(klass / "deep" / "custom_sigmoid.py")
    shutil.copyfile(SOLUTIONS / "manual_gradient.py", klass / "key" / "manual_gradient.py")
    done = batch.run(
        submissions_dir=klass,
        exercises=[exercises["manual_gradient"], exercises["custom_sigmoid"]],
        config=Config(examples=2, time_per_call=15.0, time_per_exercise=120.0),
        lang="en",
        root=ROOT,
        jobs=1,
    )
    assert not done.lost, done.lost  # never "the grader's fault"
    by = {r.submission: {e.id: e for e in r.exercises} for r in done.results}
    deep = by["deep"]["manual_gradient"]
    assert deep.status == "error" and "This notebook cannot be read" in deep.message.en
    assert "cannot be read" in by["deep"]["custom_sigmoid"].message.en
    assert by["key"]["manual_gradient"].score == by["key"]["manual_gradient"].max_score


def _torchinductor() -> set[str]:
    return {n for n in os.listdir("/tmp") if n.startswith("torchinductor")}


@pytest.mark.parametrize("command", ["check", "batch"])
def test_the_grader_leaves_nothing_in_its_temporary_folder(tmp_path, command):
    """freeze_layers' reference trains with torch.optim, which imports torch._dynamo, which
    makes torchinductor_<user> in the temporary folder: the command's own, removed."""
    tmp, cache = tmp_path / "tmp", tmp_path / "cache"
    tmp.mkdir()
    config = tmp_path / "config.yaml"
    config.write_text("language: en\nexamples: 3\ntime_per_call: 15\n")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")
    }
    env.update(TMPDIR=str(tmp), GRADER_CACHE=str(cache), PYTHONPATH=str(ROOT))
    args = ["--config", str(config), "--exercises-dir", str(EXERCISES)]
    if command == "check":
        args += ["check", "freeze_layers", "--submission", str(SOLUTIONS)]
    else:
        klass = tmp_path / "class"
        (klass / "key").mkdir(parents=True)
        shutil.copyfile(SOLUTIONS / "freeze_layers.py", klass / "key" / "freeze_layers.py")
        args += ["batch", str(klass), "--out", str(tmp_path / "out")]
        args += ["--exercises", "freeze_layers", "--jobs", "1"]
    before, started = _torchinductor(), time.time()
    done = run_grader(*args, cwd=tmp_path, env=env, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(os.listdir(tmp)) == []
    assert _torchinductor() <= before, started  # nothing new named torchinductor* in /tmp

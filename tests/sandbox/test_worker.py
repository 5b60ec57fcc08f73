"""The worker's own temporary directory: whatever it and torch write there goes with it."""

from __future__ import annotations

import shutil
import tempfile
import textwrap
from pathlib import Path

import torch
from conftest import SOLUTIONS

from grader.grading.grade import grade_exercise
from grader.loader.config import Config
from grader.sandbox.client import Sandbox

WRITES_TEMP_FILES = textwrap.dedent("""
    import os, tempfile
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    cache_dir()                       # torch's torchinductor_<user> folder
    tempfile.mkdtemp()
    with open(os.path.join(os.environ["TMPDIR"], "left.txt"), "w") as f:
        f.write("x")
""")

SLOW_IMPORT = Config(examples=5, time_per_call=60.0, time_per_exercise=120.0)
"""Importing torch._inductor takes seconds on a busy machine."""


def test_nothing_a_worker_writes_to_tmp_is_left(tmp_path, monkeypatch, exercises, request):
    machine_tmp = Path(tempfile.mkdtemp(prefix="grader-test-tmp-"))  # reachable by any uid
    machine_tmp.chmod(0o1777)  # like /tmp: any worker uid may write there
    request.addfinalizer(lambda: shutil.rmtree(machine_tmp, ignore_errors=True))
    monkeypatch.setenv("TMPDIR", str(machine_tmp))  # the template and its workers inherit it
    sub = tmp_path / "sub"
    sub.mkdir()
    key = (SOLUTIONS / "manual_gradient.py").read_text()
    (sub / "manual_gradient.py").write_text(WRITES_TEMP_FILES + key)
    with Sandbox().start() as sandbox:
        result = grade_exercise(
            exercise=exercises["manual_gradient"],
            submission_dir=sub,
            config=SLOW_IMPORT,
            sandbox=sandbox,
        )
        template_tmp = Path(sandbox.tmp)
        # The worker wrote in its own folder (in its scratch copy), not in the template's.
        assert [
            p.name
            for p in template_tmp.rglob("*")
            if "uid" in p.name or p.name == "left.txt" or p.name.startswith("tmp")
        ] == []
    assert result.status == "passed", result.message  # the writes themselves worked
    assert list(machine_tmp.iterdir()) == []
    assert not template_tmp.exists()  # the template's own folder went with it


GROWS_A_GLOBAL_LIST = textwrap.dedent("""
    seen = []

    def f(x):
        out = x.clone()
        while True:  # an endless loop that keeps what it grows: nothing is freed on MemoryError
            seen.append(out.tolist())
""")


def test_memory_used_up_by_a_global_list_is_told_as_memory_with_its_size(tmp_path):
    """The worker keeps memory back to tell the MemoryError: without it, describing the error
    failed and the worker's end was told as "ended the process (exit, code 70)"."""
    from grader.common import wire
    from grader.sandbox.workers import Limits

    scratch = Path(tempfile.mkdtemp(prefix="grader-test-"))  # reachable by a worker's uid
    try:
        (scratch / "grows.py").write_text(GROWS_A_GLOBAL_LIST)
        limits = Limits(
            call_seconds=120, memory_bytes=1200 * 2**20, output_bytes=2**20, cpu_seconds=300
        )
        with Sandbox().start() as sandbox:
            worker = sandbox.spawn(
                scratch=str(scratch), file="grows.py", module="grows", trap=[], limits=limits
            )
            while "ready" not in worker.receive(120)[0]:
                pass
            for _ in range(2):  # and again, with the memory still held
                enc = wire.Encoder()
                header = {
                    "op": "call",
                    "fn": "f",
                    "args": [enc.value(torch.ones(3))],
                    "forbid": [],
                }
                reply, _ = worker.request(header, enc, 120)
                error = reply["error"]
                assert error["type"] == "MemoryError", reply
                assert 100 * 2**20 < error["peak_bytes"] <= 1200 * 2**20
            worker.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

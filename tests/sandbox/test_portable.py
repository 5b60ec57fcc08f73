"""Portable mode (spawned workers, pipes, time limits enforced by the grader), as Windows gets
it, run here on Linux: the answer key keeps full marks and the hostile cases it can contain get
their outcomes. The cases it cannot contain are skipped, each with the reason docs/security.md gives."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import SOLUTIONS, by_id
from test_hostile import CONFIG, OUTCOMES, assert_outcome, messages, source

from grader.cli.student import only_checks
from grader.grading.grade import grade
from grader.sandbox import portable
from grader.sandbox.client import Sandbox

CANNOT_CONTAIN = {
    "memory_growth": "no memory limit in portable mode",
    "output_flood": "no output-size limit in portable mode",
    "read_answer_key": "no namespaces: the answer key is only off the import path",
    "key_network": "no network namespace in portable mode",
    "key_kill_parent": "the worker's parent is the grader itself in portable mode",
    "key_child_processes": "a process that leaves the worker's session or tree can survive",
    "busy_children": "a process that leaves the worker's session or tree can survive",
    "key_children_memory": "no memory limit (no control group) in portable mode",
    "read_git_history": "no namespaces: the project checkout is readable",
    "import_reference_code": "no namespaces: the grader's own files are readable",
    "read_from_tmp": "no private /tmp in portable mode",
    "key_leave_in_tmp": "no private /tmp in portable mode",
    "key_unix_socket": "no network namespace in portable mode",
    "deep_header": "forges frames on the fork worker's socket; portable workers use pipes",
    "trickle_reply": "forges frames on the fork worker's socket; portable workers use pipes",
    "alias_engine": "caught by the static scan, which does not depend on the sandbox "
    "(tests/sandbox/test_hostile.py); this test runs value checks only",
}


@pytest.fixture(scope="module")
def portable_sandbox():
    old = os.environ.get(portable.ENV)
    os.environ[portable.ENV] = "portable"
    try:
        with Sandbox().start() as sb:
            yield sb
    finally:
        if old is None:
            os.environ.pop(portable.ENV, None)
        else:
            os.environ[portable.ENV] = old


def test_a_worker_that_floods_its_pipe_costs_the_grader_a_bounded_buffer():
    """The reader thread reads at most PipeChannel.AHEAD ahead of the grader: a worker that
    writes 64 MiB at once blocks on its pipe instead of filling the grader's memory."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'x' * (64 << 20))"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
    )
    channel = portable.PipeChannel(proc)
    try:
        deadline = time.monotonic() + 10
        while len(channel.buffer) < channel.AHEAD and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # time enough to read far more, were it not bounded
        assert channel.AHEAD <= len(channel.buffer) <= channel.AHEAD + (1 << 16)
        view = memoryview(bytearray(1 << 16))
        channel.settimeout(5)
        assert channel.recv_into(view, len(view)) == len(view) and view[0] == ord("x")
        assert proc.poll() is None  # still blocked on its pipe
    finally:
        channel.close()
    assert proc.wait(timeout=20) == 0  # after close, the rest is drained, unread
    assert len(channel.buffer) == 0


def test_a_portable_worker_has_imported_what_first_calls_import(
    portable_sandbox, exercises, tmp_path
):
    """No student-visible call pays for a lazy import (an optimizer's step imports
    torch._dynamo): the worker imported them before it said it was ready, as the template
    does in fork mode."""
    from grader.sandbox.worker import PRELOAD

    check = "\n\nimport sys as _s\n_missing = [m for m in PRELOAD if m not in _s.modules]\n"
    check += "if _missing:\n    raise RuntimeError(f'imported lazily: {_missing}')\n"
    sub = tmp_path / "sub"
    sub.mkdir()
    text = (SOLUTIONS / "manual_gradient.py").read_text() + check.replace("PRELOAD", repr(PRELOAD))
    (sub / "manual_gradient.py").write_text(text)
    exercise = only_checks([exercises["manual_gradient"]], ["df_value"])
    ex = by_id(
        grade(submission_dir=sub, exercises=exercise, config=CONFIG, sandbox=portable_sandbox)
    )["manual_gradient"]
    assert ex.status == "passed", messages(ex)


def test_mode_is_chosen_by_the_environment_and_the_platform(monkeypatch):
    monkeypatch.setenv(portable.ENV, "portable")
    assert portable.wanted()
    monkeypatch.setenv(portable.ENV, "fork")
    assert not portable.wanted()
    monkeypatch.delenv(portable.ENV)
    assert portable.wanted() == (not hasattr(os, "fork"))
    monkeypatch.delattr(os, "fork", raising=False)  # as on Windows
    assert portable.wanted()


def test_portable_grades_the_answer_key(portable_sandbox, exercises, fast_config, tmp_path):
    assert portable_sandbox.isolation == "portable"
    result = grade(
        submission_dir=SOLUTIONS,
        exercises=list(exercises.values()),
        config=fast_config,
        sandbox=portable_sandbox,
    )
    for ex in result.exercises:
        assert ex.status == "passed" and ex.score == ex.max_score, (ex.id, messages(ex))


def test_workers_start_ahead_for_the_exercises_the_grader_expects(
    portable_sandbox, exercises, fast_config, monkeypatch
):
    """Told how many exercises it is about to grade, the sandbox starts up to AHEAD workers
    at once (each imports torch for seconds), and never more than it hands out: one check of
    one exercise starts only the worker kept for the next crash."""
    pool = portable_sandbox.portable
    warm_at_launch, handed = [], []
    launch, spawn = pool._launch, pool.spawn
    monkeypatch.setattr(pool, "_launch", lambda: warm_at_launch.append(len(pool.warm)) or launch())
    monkeypatch.setattr(pool, "spawn", lambda **kw: handed.append(1) or spawn(**kw))
    monkeypatch.setattr(portable, "AHEAD", 2)

    def graded(ids):
        warm_at_launch.clear()
        handed.clear()
        result = grade(
            submission_dir=SOLUTIONS,
            exercises=[exercises[i] for i in ids],
            config=fast_config,
            sandbox=portable_sandbox,
        )
        assert all(e.status == "passed" for e in result.exercises), result.exercises
        return list(warm_at_launch), len(handed)

    launched, used = graded(["graph_tracking", "detach_tricks", "no_grad_inference"])
    assert len(launched) == used >= 3 and max(launched) >= 1  # two at once, none wasted
    launched, used = graded(["graph_tracking"])
    assert len(launched) == used and launched == [0] * used  # one at a time: the spare


@pytest.mark.spread
@pytest.mark.parametrize("case", sorted(OUTCOMES))
def test_portable_hostile_case(case, tmp_path, portable_sandbox, exercises):
    if case in CANNOT_CONTAIN:
        pytest.skip(CANNOT_CONTAIN[case])
    sub = tmp_path / case
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(source(case))
    # One check per function the cases break: a crash or timeout costs a fresh worker,
    # which here is a Python start-up importing torch.
    if case == "key_root_privileges" and os.geteuid() != 0:
        pytest.skip("a worker of a grader that is not root runs as the grader's user")
    checks = ["df_value", "grad_g_value", "mlp_grads_value", "autograd_df_value"]
    if case.startswith("runtime_"):  # the rule the runtime trap enforces, named by this check
        checks.append("no_autograd_in_manual")
    exercise = only_checks([exercises["manual_gradient"]], checks)
    ex = by_id(
        grade(submission_dir=sub, exercises=exercise, config=CONFIG, sandbox=portable_sandbox)
    )["manual_gradient"]
    status, words = OUTCOMES[case]
    if status == "full":
        assert ex.status == "passed" and ex.score == ex.max_score, messages(ex)
    elif status == "partial":
        assert ex.status == "timeout" and 0 < ex.score < ex.max_score, messages(ex)
    elif status == "forbidden_run":
        assert_outcome(case, ex, status, words)
    else:
        assert ex.status == status and ex.score == 0, (ex.status, messages(ex))
        for word in words:
            assert word in messages(ex), (word, messages(ex))


def test_portable_workers_leave_nothing_in_the_machines_temporary_folder(
    monkeypatch, exercises, fast_config, request
):
    """A worker imports torch (and, preloading, torch._dynamo, which makes
    torchinductor_<user>) before it has a scratch copy, as root where the grader is: its
    temporary files and torch's caches go to the sandbox's own folder, removed on close."""
    import shutil
    import tempfile
    from pathlib import Path

    machine_tmp = Path(tempfile.mkdtemp(prefix="grader-test-tmp-"))  # reachable by any uid
    request.addfinalizer(lambda: shutil.rmtree(machine_tmp, ignore_errors=True))
    machine_tmp.chmod(0o1777)  # like /tmp: any worker uid may write there
    monkeypatch.setenv("TMPDIR", str(machine_tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    for var in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"):  # as a plain shell has them
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(portable.ENV, "portable")
    with Sandbox().start() as sb:
        assert sb.isolation == "portable"
        result = grade(
            submission_dir=SOLUTIONS,
            exercises=[exercises["graph_tracking"]],
            config=fast_config,
            sandbox=sb,
        )
        assert result.exercises[0].status == "passed", messages(result.exercises[0])
    assert sorted(p.name for p in machine_tmp.iterdir()) == []

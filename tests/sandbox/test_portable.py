"""Portable mode (spawned workers, pipes, time limits enforced by the grader), as Windows gets
it, run here on Linux: the answer key keeps full marks and the hostile cases it can contain get
their outcomes. The cases it cannot contain are skipped, each with the reason docs/security.md gives."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import COURSE, SOLUTIONS, by_id, hidden_only, verdicts_of
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
    """Told how many exercises it is about to grade, and how many at once, the sandbox starts
    that many workers ahead (each imports torch for seconds), up to AHEAD, and they serve the
    submission's next exercises (grader.sandbox.worker.leftovers): three exercises take two workers when
    graded two at a time, one when graded one at a time."""
    pool = portable_sandbox.portable
    launched, handed = [], []
    launch, spawn = pool._launch, pool.spawn
    monkeypatch.setattr(pool, "_launch", lambda: launched.append(1) or launch())
    monkeypatch.setattr(pool, "spawn", lambda **kw: handed.append(kw["owner"]) or spawn(**kw))
    monkeypatch.setattr(portable, "AHEAD", 2)

    def graded(at_once, folder):
        pool.close()  # none warm, none idle: every worker it uses is launched here
        launched.clear()
        handed.clear()
        result = grade(
            submission_dir=folder,
            exercises=[
                exercises[i] for i in ("graph_tracking", "detach_tricks", "no_grad_inference")
            ],
            config=fast_config,
            sandbox=portable_sandbox,
            at_once=at_once,
        )
        assert all(e.status == "passed" for e in result.exercises), result.exercises
        assert len(set(handed)) == 1  # the submission's folder
        return len(launched), len(handed)

    assert graded(2, SOLUTIONS) == (2, 3)
    assert graded(1, SOLUTIONS) == (1, 3)


def test_the_course_in_portable_mode_gets_fork_modes_verdicts(
    tmp_path, portable_sandbox, sandbox, exercises, fast_config
):
    """A student's course (a caught mutant for every other exercise, the answer key for the
    rest), graded two at a time by portable workers that serve exercise after exercise, and by
    fork mode's fresh worker per exercise: the same verdicts and counterexamples."""
    folder = tmp_path / "student"
    folder.mkdir()
    for n, ex in enumerate(COURSE):
        mutants = [
            m for m in sorted((SOLUTIONS / "mutants" / ex).glob("*.py")) if not hidden_only(m)
        ]
        source = mutants[0] if n % 2 == 0 and mutants else SOLUTIONS / f"{ex}.py"
        (folder / f"{ex}.py").write_bytes(source.read_bytes())
    chosen = [exercises[e] for e in COURSE]

    def graded(sb) -> dict:
        return verdicts_of(
            grade(
                submission_dir=folder, exercises=chosen, config=fast_config, sandbox=sb, at_once=2
            )
        )

    assert graded(portable_sandbox) == graded(sandbox)


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


HOSTILE_LEFTOVERS = {
    "torch_function": "\nimport torch as _t\n_t.nn.functional.softplus = lambda *a, **k: None\n",
    "tensor_method": "\nimport torch as _t\n_t.Tensor.softmax = lambda self, *a, **k: self\n",
    "torch_addition": "\nimport torch as _t\n_t.my_helper = lambda x: x\n",
    "thread": "\nimport threading as _th, time as _ti\n"
    "_th.Thread(target=_ti.sleep, args=(120,), daemon=True).start()\n",
}


def _served(pool, monkeypatch) -> list:
    """(module, worker pid) of each exercise's first worker, in the order they were asked for."""
    order = []
    real = pool._spawn

    def spawn(scratch, file, module, *args):
        worker = real(scratch, file, module, *args)
        order.append((module, worker.pid))
        return worker

    monkeypatch.setattr(pool, "_spawn", spawn)
    return order


@pytest.mark.parametrize("left", [None, *sorted(HOSTILE_LEFTOVERS)])
def test_a_worker_serves_the_submissions_next_exercise_unless_its_code_left_something(
    left, tmp_path, portable_sandbox, exercises, fast_config, monkeypatch
):
    """One worker serves a submission's exercises one after another (each imported afresh in
    its own scratch copy, with its own module name): the same verdicts as alone. An exercise
    whose code changed a torch function or method, or left a thread running, has its worker
    replaced before the next exercise; a global mode it left (the default dtype) is set back
    and the worker serves on."""
    ids = ["manual_gradient", "graph_tracking", "detach_tricks"]
    sub = tmp_path / "student"
    sub.mkdir()
    for ex in ids:
        (sub / f"{ex}.py").write_bytes((SOLUTIONS / f"{ex}.py").read_bytes())
    hostile = HOSTILE_LEFTOVERS.get(
        left, "\nimport torch as _t\n_t.set_default_dtype(_t.float64)\n"
    )
    with open(sub / "manual_gradient.py", "a") as f:
        f.write(hostile)
    order = _served(portable_sandbox.portable, monkeypatch)
    result = grade(
        submission_dir=sub,
        exercises=[exercises[e] for e in ids],
        config=fast_config,
        sandbox=portable_sandbox,
    )
    for e in result.exercises[1:]:  # what the first left did not reach them
        assert e.status == "passed" and e.score == e.max_score, messages(e)
    assert [m for m, _ in order] == [exercises[e].module for e in ids]  # the longest first
    pids = [pid for _, pid in order]
    if left is None:
        assert pids[0] == pids[1] == pids[2]
    else:
        assert pids[1] != pids[0] and pids[2] == pids[1]  # replaced once, then reused

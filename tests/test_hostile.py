"""Hostile submissions (tests/hostile/) cost only their own score, and leave nothing behind.

Each case is graded beside a correct `twin` exercise in the same submission, which must keep full
marks. Cases named key_* add a trick to the answer key: harmless, so they keep full marks too.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTIONS, by_id
from grader import spec as spec_mod
from grader.config import Config
from grader.grading import grade

HOSTILE = Path(__file__).parent / "hostile"
KEY = (SOLUTIONS / "manual_gradient.py").read_text()
CONFIG = Config(examples=8, time_per_call=1.0, time_per_exercise=30.0,
                memory_per_worker=1024 * 2**20, output_cap=2**20)

# case -> (exercise status, words the exercise or a check message must contain); "full" = full marks
OUTCOMES = {
    "loop_at_import": ("timeout", ["time limit"]),
    "loop_in_calls": ("timeout", ["limit of 1 s per call"]),
    "key_slow_calls": ("partial", ["limit of 1 s per call"]),
    "memory_growth": ("failed", ["out of memory"]),
    "exits_in_calls": ("failed", ["SystemExit", "ended the process (exit, code 0)",
                                  "KeyboardInterrupt", "RecursionError"]),
    "system_exit_in_calls": ("failed", ["SystemExit: 3"]),
    "segfault": ("failed", ["signal 11", "signal"]),
    "fake_output": ("failed", ["values differ"]),
    "output_flood": ("error", ["output limit"]),
    "patch_comparisons": ("error", ["torch.allclose", "torch.isclose", "torch.equal",
                                    "torch.testing.assert_close", "torch.isfinite"]),
    "key_patch_builtins": ("full", []),
    "tensor_subclass": ("failed", ["Agreeable", "subclass"]),
    "import_answer_key": ("error", ["No module named 'solutions'"]),
    "read_answer_key": ("error", ["answer key not found"]),
    "global_state": ("failed", ["values differ"]),
    "key_child_processes": ("full", []),
    "key_kill_parent": ("full", []),
    "key_network": ("full", []),
}


def source(case: str, port: int = 0) -> str:
    text = (HOSTILE / f"{case}.py").read_text().replace("PORT", str(port))
    return KEY + "\n\n" + text if case.startswith("key_") else text


@pytest.fixture(scope="module")
def twin_exercises(tmp_path_factory):
    root = tmp_path_factory.mktemp("specs")
    for name in ("manual_gradient", "twin"):
        (root / name).mkdir()
        text = (ROOT / "exercises/manual_gradient/exercise.yaml").read_text()
        (root / name / "exercise.yaml").write_text(text.replace("id: manual_gradient",
                                                                f"id: {name}"))
    return spec_mod.discover(root)


def messages(ex) -> str:
    parts = [ex.message.en] if ex.message else []
    parts += [c.message.en for c in ex.checks if c.message]
    return "\n".join(parts)


def processes_with(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    return found


def test_every_case_has_an_outcome():
    assert {p.stem for p in HOSTILE.glob("*.py")} == set(OUTCOMES)


@pytest.mark.parametrize("case", sorted(OUTCOMES))
def test_hostile_case(case, tmp_path, sandbox, twin_exercises):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.2)
    sub = tmp_path / case
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(source(case, listener.getsockname()[1]))
    (sub / "twin.py").write_text(KEY)
    started = time.monotonic()
    result = by_id(grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG,
                         sandbox=sandbox))
    elapsed = time.monotonic() - started
    ex, twin = result["manual_gradient"], result["twin"]
    status, words = OUTCOMES[case]
    assert twin.status == "passed" and twin.score == twin.max_score, "the twin suffered"
    if status == "full":
        assert ex.status == "passed" and ex.score == ex.max_score, messages(ex)
    elif status == "partial":  # graded normally: the slow function's checks time out
        assert ex.status == "timeout" and 0 < ex.score < ex.max_score
        assert all(word in messages(ex) for word in words)
    else:
        assert ex.status == status, (ex.status, messages(ex))
        assert ex.score == 0, messages(ex)
        text = messages(ex)
        for word in words:
            assert word in text, (word, text)
    assert elapsed < 2 * CONFIG.time_per_exercise + 10
    if case == "key_network":
        with pytest.raises(socket.timeout):
            listener.accept()  # nobody connected: the worker has no network
    listener.close()


def test_no_process_survives_its_exercise(tmp_path, sandbox, twin_exercises):
    if sandbox._wait_ready() or sandbox.isolation != "namespaces":
        pytest.skip("escaped sessions are only contained with namespaces (see README)")
    sub = tmp_path / "children"
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(source("key_child_processes"))
    grade(submission_dir=sub, exercises=twin_exercises[:1], config=CONFIG, sandbox=sandbox)
    time.sleep(0.2)
    assert processes_with("97531") == [] and processes_with("97532") == []


def test_next_submission_is_unaffected_by_global_state(tmp_path, sandbox, twin_exercises):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "manual_gradient.py").write_text(source("global_state"))
    (second / "manual_gradient.py").write_text(KEY)
    exercise = twin_exercises[:1]
    grade(submission_dir=first, exercises=exercise, config=CONFIG, sandbox=sandbox)
    after = grade(submission_dir=second, exercises=exercise, config=CONFIG, sandbox=sandbox)
    assert after.exercises[0].status == "passed"


def test_without_namespaces_the_grader_survives_a_killed_parent(tmp_path, twin_exercises):
    """The fallback: the template stands between grader and worker, and is restarted."""
    from grader.sandbox.client import Sandbox

    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(source("key_kill_parent"))
    (sub / "twin.py").write_text(KEY)
    with Sandbox(namespaces=False).start() as basic:
        result = by_id(grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG,
                             sandbox=basic))
        assert basic.isolation == "basic"
    assert result["twin"].status == "passed"
    # It killed its own process group too (os.killpg(0, ...)), so its exercise fails, named.
    assert result["manual_gradient"].status == "error"
    assert "kill its parent" in result["manual_gradient"].message.en


def test_a_class_of_hostile_and_correct_submissions(tmp_path, twin_exercises, sandbox):
    """Every case above in one parallel batch with correct submissions: the batch completes
    within its limits, correct ones keep full marks, hostile ones get their outcome, and no
    process is left running."""
    from grader import batch

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    klass = tmp_path / "class"
    cases = sorted(OUTCOMES)
    for case in cases:
        (klass / case).mkdir(parents=True)
        (klass / case / "manual_gradient.py").write_text(source(case, port))
    for i in range(3):
        (klass / f"correct{i}").mkdir()
        (klass / f"correct{i}" / "manual_gradient.py").write_text(KEY)
    exercise = [e for e in twin_exercises if e.id == "manual_gradient"]
    started = time.monotonic()
    done = batch.run(submissions_dir=klass, exercises=exercise, config=CONFIG, lang="en",
                     root=ROOT, jobs=2)
    elapsed = time.monotonic() - started
    assert not done.lost, done.lost
    results = {r.submission: r.exercises[0] for r in done.results}
    assert set(results) == set(cases) | {"correct0", "correct1", "correct2"}
    for i in range(3):
        assert results[f"correct{i}"].score == results[f"correct{i}"].max_score
    for case in cases:
        ex, (status, _) = results[case], OUTCOMES[case]
        if status == "full":
            assert ex.score == ex.max_score, case
        elif status == "partial":
            assert 0 < ex.score < ex.max_score, case
        else:
            assert ex.score == 0 and ex.status == status, (case, ex.status, ex.score)
    # Sequentially this is the sum of the cases' limits; two jobs must take well under that.
    assert elapsed < len(cases) * CONFIG.time_per_exercise
    sandbox._wait_ready()
    if sandbox.isolation == "namespaces":  # elsewhere, see test_no_process_survives_...
        time.sleep(0.2)
        assert processes_with("97531") == [] and processes_with("97532") == []
    listener.settimeout(0.1)
    with pytest.raises(socket.timeout):
        listener.accept()
    listener.close()

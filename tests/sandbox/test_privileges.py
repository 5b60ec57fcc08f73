"""A root grader never runs a worker as root (grader.sandbox.isolation: drop_privileges,
end_processes_of, refusal, preflight); where its workers could not run unprivileged, it refuses
to grade with one message saying how to run it."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from grader.cli import main as cli
from grader.sandbox import isolation

pytestmark = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0, reason="privileges are dropped by a root grader only"
)


def _in_child(body) -> int:
    """Run body() in a forked child; its exit code (0: body returned, 1: it raised)."""
    isolation.prepare()
    pid = os.fork()
    if pid == 0:
        try:
            body()
        except BaseException:
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status)


@pytest.fixture
def open_folder():
    """A folder other users can enter (as the scratch copies' /tmp is; pytest's tmp_path sits
    under a folder only root enters)."""
    folder = Path(tempfile.mkdtemp(prefix="grader-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_dropped_worker_has_no_root_id_group_or_capability(open_folder):
    uid = isolation.worker_uid(os.getpid())
    assert uid >= isolation.SYSTEM_IDS and uid != 65534
    scratch = open_folder / "scratch"
    scratch.mkdir()
    (scratch / "student.py").write_text("x = 1\n")
    secret = open_folder / "secret"
    secret.write_text("root only")
    secret.chmod(0o600)

    def body():
        isolation.drop_privileges(uid, str(scratch))
        assert os.getresuid() == (uid,) * 3 and os.getresgid() == (uid,) * 3
        assert os.getgroups() == []
        with open("/proc/self/status") as f:
            status = dict(line.split(":", 1) for line in f)
        assert int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0
        assert status["NoNewPrivs"].strip() == "1"
        with pytest.raises(PermissionError):
            os.setuid(0)
        with pytest.raises(PermissionError):
            secret.read_text()
        (scratch / "written.txt").write_text("its own scratch copy")  # given to it

    assert _in_child(body) == 0
    assert (scratch / "written.txt").stat().st_uid == uid


def test_every_process_of_a_worker_id_ends_wherever_it_went():
    uid = isolation.worker_uid(os.getpid() + 1)
    isolation.prepare()
    pid = os.fork()
    if pid == 0:  # a worker that leaves a daemon in a session of its own, then exits
        try:
            isolation.drop_privileges(uid)
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(60)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    time.sleep(0.1)

    def of_uid():
        found = []
        for p in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{p}/status") as f:
                    fields = dict(line.split(":", 1) for line in f)
                if int(fields["Uid"].split()[0]) == uid and fields["State"].split()[0] != "Z":
                    found.append(int(p))
            except (OSError, KeyError, ValueError):
                pass
        return found

    assert of_uid(), "the daemon never started: the test shows nothing"
    isolation.end_processes_of(uid, spawn=True)
    deadline = time.monotonic() + 2
    while of_uid() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert of_uid() == []


def test_a_python_folder_workers_cannot_read_is_refused_with_the_fix(tmp_path):
    hidden = tmp_path / "site-packages"
    hidden.mkdir()
    hidden.chmod(0o700)
    message = isolation.refusal([str(hidden)])
    assert message and str(hidden) in message and "chmod -R o+rX" in message
    # A folder only its parents hide (a Python under /root) is reached through a descriptor.
    tmp_path.chmod(0o700)
    hidden.chmod(0o755)
    assert isolation.refusal([str(hidden)]) is None


def test_without_namespaces_a_temporary_folder_workers_cannot_enter_is_refused(
    tmp_path, monkeypatch
):
    closed = tmp_path / "tmp"
    closed.mkdir()
    closed.chmod(0o700)
    monkeypatch.setenv("TMPDIR", str(closed))
    monkeypatch.setattr("tempfile.tempdir", None)
    assert isolation.scratch_refusal("namespaces") is None  # bound back into its namespace
    message = isolation.scratch_refusal("basic")
    assert message and str(closed) in message and "TMPDIR" in message
    monkeypatch.setenv("GRADER_NO_NAMESPACES", "1")
    assert isolation.preflight() == message


def test_batch_refuses_the_class_with_one_message(tmp_path, monkeypatch, capsys):
    """Exit 2 and how to run the grader, before any submission is graded."""
    closed = tmp_path / "tmp"
    closed.mkdir()
    closed.chmod(0o700)
    monkeypatch.setenv("TMPDIR", str(closed))
    monkeypatch.setattr("tempfile.tempdir", None)
    monkeypatch.setenv("GRADER_NO_NAMESPACES", "1")
    klass = tmp_path / "class"
    (klass / "ana").mkdir(parents=True)
    (klass / "ana" / "manual_gradient.py").write_text("")
    out = tmp_path / "out"
    code = cli.main(["batch", str(klass), "--out", str(out)])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "cannot enter the temporary folder" in err and "TMPDIR" in err, err
    assert not (out / "results.json").exists()

"""Hostile submissions (tests/hostile/) cost only their own score, and leave nothing behind.

Each case is graded beside a correct `twin` exercise in the same submission, which must keep full
marks. Cases named key_* add a trick to the answer key: harmless, so they keep full marks too;
alias_* add one that costs only the forbidden-API points; runtime_* one the trap stops where it
runs (its function's checks fail, naming the forbidden call). The class batch at the end adds what a
single file cannot hold: links, FIFOs, huge and pathological files, deep folders and hostile
folder names, and checks that its outputs still parse.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import ROOT, SOLUTIONS, by_id

from grader.grading.grade import grade
from grader.loader import specfile
from grader.loader.config import Config

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
KEY = (SOLUTIONS / "manual_gradient.py").read_text()
CONFIG = Config(
    examples=8,
    time_per_call=1.0,
    time_per_exercise=30.0,
    memory_per_worker=1024 * 2**20,
    output_cap=2**20,
)

# case -> (exercise status, words the exercise or a check message must contain); "full" = full marks
OUTCOMES = {
    "loop_at_import": ("timeout", ["time limit"]),
    "loop_in_calls": ("timeout", ["limit of 1 s per call"]),
    "key_slow_calls": ("partial", ["limit of 1 s per call"]),
    "memory_growth": ("failed", ["out of memory"]),
    "exits_in_calls": (
        "failed",
        ["SystemExit", "ended the process (exit, code 0)", "KeyboardInterrupt", "RecursionError"],
    ),
    "system_exit_in_calls": ("failed", ["SystemExit: 3"]),
    "segfault": ("failed", ["signal 11", "signal"]),
    "fake_output": ("failed", ["values differ"]),
    "output_flood": ("error", ["output limit"]),
    "patch_comparisons": (
        "error",
        [
            "torch.allclose",
            "torch.isclose",
            "torch.equal",
            "torch.testing.assert_close",
            "torch.isfinite",
        ],
    ),
    "key_patch_builtins": ("full", []),
    "tensor_subclass": ("failed", ["Agreeable", "subclass"]),
    "import_answer_key": ("error", ["No module named 'solutions'"]),
    "read_answer_key": ("error", ["answer key not found"]),
    "global_state": ("failed", ["values differ"]),
    "key_child_processes": ("full", []),
    "key_kill_parent": ("full", []),
    "key_network": ("full", []),
    "read_git_history": ("error", ["answer key not found in git history"]),
    "import_reference_code": ("error", ["reference code not found"]),
    "key_leave_in_tmp": ("full", []),
    "read_from_tmp": ("error", ["answer key not found in /tmp"]),
    "key_environment": ("full", []),
    "key_unix_socket": ("full", []),
    "key_children_memory": ("memory_contained", []),
    # Its thirty spinners share the worker's control group: on a busy machine they can starve
    # the student's own calls past the limit (its own doing, graded as a timeout); either way
    # it earns nothing and no other submission is slowed (test_starvation.py).
    "busy_children": ("nothing", ["NotImplementedError"]),
    "trickle_reply": ("timeout", ["limit of 1 s per call"]),
    "deep_header": ("failed", ["malformed data"]),
    "forged_tensors": ("failed", ["malformed data"]),
    "key_plant_cache": ("full", []),
    "key_root_privileges": ("full", []),
    "key_rewrite_results": ("full", []),
    "huge_message": ("failed", ["raised ValueError: xxxx"]),
    "escape_message": ("failed", ["\\x1b[32mTotal: 61/61"]),
    "alias_engine": (
        "forbidden",
        ["torch._C._ImperativeEngine (private torch API: torch.autograd.backward)"],
    ),
    "runtime_engine_helper": ("forbidden_run", ["grad_g", "made a tensor that requires grad"]),
    "runtime_autograd_importlib": (
        "forbidden_run",
        ["grad_g called torch.autograd.functional.jacobian (line "],
    ),
    "runtime_thread": ("forbidden_run", ["df called torch.Tensor.requires_grad_ (line "]),
    "runtime_entry_is_torch": (
        "forbidden_run",
        ["df called torch._functorch.eager_transforms.grad_impl"],  # what torch.func.grad built
    ),
    "runtime_forward_ad_strings": (
        "forbidden_run",
        ["df called torch.autograd.forward_ad.enter_dual_level (as torch._C._enter_dual_level"],
    ),
    "runtime_forward_ad_alias": (
        "forbidden_run",
        [
            "grad_g called torch.autograd.forward_ad.enter_dual_level",
            "torch._C._enter_dual_level (private torch API: torch.autograd.forward_ad.enter_dual_level) (line ",
            "torch._make_dual (private torch API: torch.autograd.forward_ad.make_dual) (line ",
            ", _partial);",
        ],
    ),
    "runtime_forward_ad_private": (
        "forbidden_run",
        [
            "df called torch.autograd.forward_ad.enter_dual_level (as torch._C._enter_dual_level",
            "grad_g called torch.func.jacfwd (as torch._functorch.eager_transforms.jacfwd",
        ],
    ),
    "forge_observations": ("error", ["grader.sandbox.probes"]),
    "stash_hidden_inputs": ("failed", ["stash: "]),
}
NEEDS_CGROUPS = {"key_children_memory"}
"""Cases whose containment needs a control group per worker; elsewhere they fail (docs/security.md)."""
MARKERS = ("97531", "97532", "86421", "86422")
"""In the command lines of the processes the cases start: none may outlive its exercise."""
DAEMON = "hostile86423"
"""The process name key_rewrite_results gives its daemon (PR_SET_NAME: /proc/PID/comm)."""
RESULTS = '{"score": 19}'
"""What the grader wrote to the results file key_rewrite_results tries to rewrite."""


ABSTRACT = f"\0hostile-abstract-86420-{os.getpid()}"
"""The abstract socket Listeners binds: this run's own (a suite running beside it has another)."""


def source(case: str, port: int = 0, unix: str = "", results: str = "/nonexistent") -> str:
    text = (HOSTILE / f"{case}.py").read_text().replace("PORT", str(port))
    text = text.replace("UNIXPATH", unix).replace("ABSTRACTNAME", ABSTRACT[1:])
    text = text.replace("RESULTSPATH", results)
    keyed = case.startswith(("key_", "alias_", "runtime_")) or case == "stash_hidden_inputs"
    return KEY + "\n\n" + text if keyed else text


def expected(case: str, sandbox) -> tuple[str, list[str]]:
    if case == "key_root_privileges" and os.geteuid() != 0:
        return ("any", [])  # a grader that is not root has no privilege to keep from its workers
    if case in NEEDS_CGROUPS:
        sandbox._wait_ready()
        if sandbox.cgroups in (None, "none"):
            return ("any", [])
    return OUTCOMES[case]


class Listeners:
    """A TCP port on loopback, a Unix socket in the grader's /tmp and an abstract one: no
    worker may reach any of them."""

    def __init__(self, folder: Path):
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(1)
        self.port = self.tcp.getsockname()[1]
        self.path = str(folder / "host.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.path)
        self.unix.listen(1)
        self.abstract = socket.socket(socket.AF_UNIX)
        self.abstract.bind(ABSTRACT)
        self.abstract.listen(1)

    def assert_untouched(self):
        for s in (self.tcp, self.unix, self.abstract):
            s.settimeout(0.1)
            with pytest.raises(socket.timeout):
                s.accept()

    def close(self):
        for s in (self.tcp, self.unix, self.abstract):
            s.close()


@pytest.fixture
def listeners(tmp_path):
    ls = Listeners(tmp_path)
    yield ls
    ls.close()


STARTED = time.time()
"""When this test module was loaded: marker files older than this are another run's (a run
on the same machine, or one killed before it could clean up), not this run's leak."""
_SINCE = [STARTED]
"""When the running test began: control groups older than this are not its leak."""


@pytest.fixture(autouse=True)
def _this_tests_groups():
    """The control groups a test answers for are those made while it runs: the tests beside it
    (pytest -n) start and interrupt graders of their own, and a group one of those leaves is
    that test's leak, not this one's."""
    _SINCE[0] = time.time()
    yield


def leftovers() -> list[str]:
    """Files a worker of this run left in the grader's /tmp or /dev/shm (see key_leave_in_tmp)."""
    found = []
    for folder in ("/tmp", "/dev/shm"):
        try:
            names = [os.path.join(folder, n) for n in os.listdir(folder) if "86420" in n]
        except OSError:
            continue
        for path in names:
            try:
                if os.lstat(path).st_mtime >= STARTED - 1:
                    found.append(path)
            except OSError:
                pass
    return found


def orphan_groups(wait: float = 5.0) -> list[str]:
    """Control groups of this run whose template is gone (a worker killed it) and that nobody
    removed: the grader removes them in its stead. Another test's grader may be removing one
    of its own at this moment (tests run side by side, pytest -n): that one is gone within
    `wait` seconds, a group left behind stays."""
    deadline = time.monotonic() + wait
    while True:
        found = _orphan_groups()
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(0.2)


def _orphan_groups() -> list[str]:
    import glob

    found = []
    for path in glob.glob("/sys/fs/cgroup/*/grader-*") + glob.glob(
        "/sys/fs/cgroup/*/*/*/grader-*"
    ):
        try:
            pid = int(os.path.basename(path).split("-")[1])
            if os.lstat(path).st_mtime >= _SINCE[0] - 1 and not os.path.exists(f"/proc/{pid}"):
                found.append(path)
        except (OSError, ValueError, IndexError):
            pass
    return found


def assert_outcome(case, ex, status, words):
    text = messages(ex)
    if status == "any":
        return
    if status == "full":
        assert ex.status == "passed" and ex.score == ex.max_score, (case, text)
    elif status == "memory_contained":
        # The children count against the worker's memory: the kernel stops one of them (full
        # marks) or, its choice, the worker itself, which is then named as out of memory; on a
        # busy machine the reclaim their memory forces can stall the worker's own calls past
        # the limit (a timeout of its own making). Memory left unlimited shows otherwise: the
        # file's own MemoryError ("children held 1.2 GB"), a failure that is none of these.
        failed = [c for c in ex.checks if c.status != "passed"]
        assert (
            ex.status == "passed"
            or any("out of memory" in (c.message.en if c.message else "") for c in failed)
            or (ex.status == "timeout" and all(c.status in ("passed", "timeout") for c in failed))
        ), (case, text)
    elif status == "nothing":  # its own failure or its own timeout, never points
        assert ex.status in ("failed", "timeout") and ex.score == 0, (case, ex.status, text)
        if ex.status == "timeout":  # told as the per-call limit, its own code named
            words = ["limit of", "per call"]
    elif status == "partial":  # graded normally: the slow function's checks time out
        assert ex.status == "timeout" and 0 < ex.score < ex.max_score, (case, text)
    elif status == "forbidden":  # right values; only the forbidden-API check fails
        failed = [c for c in ex.checks if c.status != "passed"]
        assert ex.status == "failed" and [c.kind for c in failed] == ["forbidden_api"], text
    elif status == "forbidden_run":  # the trap stops the call: its function's checks fail
        failed = [c for c in ex.checks if c.status != "passed"]
        assert ex.status == "failed" and "forbidden_api" in [c.kind for c in failed], text
        shown = [c for c in failed if c.message and not c.hidden]  # batch conceals hidden rows
        assert all("forbid" in c.message.en.lower() for c in shown), text
    else:
        assert ex.status == status, (case, ex.status, text)
        assert ex.score == 0, (case, text)
    for word in words:
        assert word in text, (case, word, text[:2000])


@pytest.fixture(scope="module")
def twin_exercises(tmp_path_factory):
    root = tmp_path_factory.mktemp("specs")
    for name in ("manual_gradient", "twin"):
        (root / name).mkdir()
        text = (ROOT / "exercises/manual_gradient/exercise.yaml").read_text()
        (root / name / "exercise.yaml").write_text(
            text.replace("id: manual_gradient", f"id: {name}")
        )
    return specfile.discover(root)


def messages(ex) -> str:
    parts = [ex.message.en] if ex.message else []
    parts += [c.message.en for c in ex.checks if c.message]
    return "\n".join(parts)


def named(name: str) -> list[int]:
    """Live processes whose name (comm) is `name`, waiting up to 2 s for killed ones to go
    (a zombie whose parent died lingers until a PID 1 reaps it, and runs no code)."""
    deadline = time.monotonic() + 2.0
    while True:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                if Path(f"/proc/{pid}/comm").read_text().strip() == name:
                    if stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                        found.append(int(pid))
            except (OSError, IndexError):
                pass
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def contained(sandbox) -> bool:
    """Whether a worker's processes cannot outlive its exercise: a PID namespace, or a root
    grader that ends every process of the worker's own user id (docs/security.md)."""
    sandbox._wait_ready()
    return sandbox.isolation == "namespaces" or os.geteuid() == 0


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


@pytest.mark.spread
@pytest.mark.parametrize("case", sorted(OUTCOMES))
def test_hostile_case(case, tmp_path, sandbox, twin_exercises, listeners):
    sub = tmp_path / case
    sub.mkdir()
    results = tmp_path / "results.json"  # the grader's (root's, where it is root) own file
    results.write_text(RESULTS)
    (sub / "manual_gradient.py").write_text(
        source(case, listeners.port, listeners.path, str(results))
    )
    (sub / "twin.py").write_text(KEY)
    started = time.monotonic()
    result = by_id(
        grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG, sandbox=sandbox)
    )
    elapsed = time.monotonic() - started
    ex, twin = result["manual_gradient"], result["twin"]
    assert twin.status == "passed" and twin.score == twin.max_score, "the twin suffered"
    assert_outcome(case, ex, *expected(case, sandbox))
    assert elapsed < 2 * CONFIG.time_per_exercise + 10
    assert orphan_groups() == []
    if contained(sandbox):  # no process of the worker's outlives its exercise to write later
        time.sleep(0.3)
        assert named(DAEMON) == [] and results.read_text() == RESULTS
    if sandbox.isolation == "namespaces":  # nobody connected: the worker has no network
        listeners.assert_untouched()
        assert leftovers() == []


SECRET = """checks:
  - id: df_secret
    kind: value
    hidden: true
    title: {id: "df(x) benar pada vektor rahasia", en: "df(x) is right on a secret vector"}
    function: df
    args:
      x: {shape: [11], low: 2, high: 3}
    expect: {grad_of: f, wrt: x}
    points: 2
"""
"""A hidden check placed first, on a shape no visible check draws (sides up to 4): its inputs
are the only tensors of shape (11,) a worker ever gets."""


@pytest.fixture(scope="module")
def secret_exercise(tmp_path_factory):
    root = tmp_path_factory.mktemp("secret")
    (root / "manual_gradient").mkdir()
    text = (ROOT / "exercises/manual_gradient/exercise.yaml").read_text()
    (root / "manual_gradient" / "exercise.yaml").write_text(text.replace("checks:\n", SECRET, 1))
    return specfile.discover(root)


def shown(c) -> str:
    """Everything of a check's row a report can show a student."""
    parts = [c.message.id, c.message.en] if c.message else []
    return "\n".join(parts + [c.counterexample or "", c.output or "", *c.traceback])


def test_hidden_inputs_never_reach_a_visible_report(tmp_path, sandbox, secret_exercise):
    """Information flows from visible checks to hidden ones, never back: a submission that
    stashes every input and shows its stash in every later call shows no hidden input in a
    visible check, and its visible rows are the same as when no hidden check runs at all."""
    sub = tmp_path / "stash"
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(source("stash_hidden_inputs"))
    full = grade(
        submission_dir=sub,
        exercises=secret_exercise,
        config=CONFIG,
        sandbox=sandbox,
        include_hidden=True,
    ).exercises[0]
    alone = grade(
        submission_dir=sub, exercises=secret_exercise, config=CONFIG, sandbox=sandbox
    ).exercises[0]
    assert [c.id for c in full.checks] == [c.id for c in secret_exercise[0].checks]
    secret = [c for c in full.checks if c.hidden]
    visible = [c for c in full.checks if not c.hidden]
    # The case works: its hidden row shows its own stash, and visible rows show theirs.
    assert "shape=(11,)" in shown(secret[0]), shown(secret[0])[:500]
    assert any("stash: shape=(" in shown(c) for c in visible)
    for c in visible:
        assert "shape=(11,)" not in shown(c), (c.id, shown(c)[:500])
    assert full.message is None and not full.traceback

    def row(c):
        return (c.id, c.status, c.points, shown(c), c.cause)

    assert [row(c) for c in visible] == [row(c) for c in alone.checks]


def test_correct_code_keeps_full_marks_beside_hidden_checks(tmp_path, sandbox, secret_exercise):
    sub = tmp_path / "key"
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(KEY)
    ex = grade(
        submission_dir=sub,
        exercises=secret_exercise,
        config=CONFIG,
        sandbox=sandbox,
        include_hidden=True,
    ).exercises[0]
    assert ex.status == "passed" and ex.score == ex.max_score, messages(ex)
    assert [c.id for c in ex.checks][0] == "df_secret" and ex.checks[0].status == "passed"


def test_no_process_survives_its_exercise(tmp_path, sandbox, twin_exercises):
    if sandbox._wait_ready() or sandbox.isolation != "namespaces":
        pytest.skip("escaped sessions are only contained with namespaces (see docs/security.md)")
    sub = tmp_path / "children"
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(source("key_child_processes"))
    grade(submission_dir=sub, exercises=twin_exercises[:1], config=CONFIG, sandbox=sandbox)
    time.sleep(0.2)
    assert all(processes_with(m) == [] for m in MARKERS)


def test_a_later_worker_cannot_read_what_an_earlier_one_left(tmp_path, sandbox, twin_exercises):
    if sandbox._wait_ready() or sandbox.isolation != "namespaces":
        pytest.skip("a private /tmp per worker needs namespaces (see docs/security.md)")
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "manual_gradient.py").write_text(source("key_leave_in_tmp"))
    (second / "manual_gradient.py").write_text(source("read_from_tmp"))
    exercise = twin_exercises[:1]
    assert (
        grade(submission_dir=first, exercises=exercise, config=CONFIG, sandbox=sandbox)
        .exercises[0]
        .status
        == "passed"
    )
    after = grade(submission_dir=second, exercises=exercise, config=CONFIG, sandbox=sandbox)
    assert after.exercises[0].status == "error" and after.exercises[0].score == 0
    assert leftovers() == []


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
        result = by_id(
            grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG, sandbox=basic)
        )
        assert basic.isolation == "basic"
    assert result["twin"].status == "passed"
    assert orphan_groups() == []  # the killed template's control groups are removed too
    # It killed its own process group too (os.killpg(0, ...)), so its exercise fails, named.
    assert result["manual_gradient"].status == "error"
    if os.geteuid() == 0:  # a worker of its own user id cannot signal the template: it dies alone
        assert "signal 9" in result["manual_gradient"].message.en
    else:
        assert "kill its parent" in result["manual_gradient"].message.en


@pytest.mark.parametrize("mode", ["basic", "portable"])
def test_a_root_grader_without_namespaces_never_runs_a_worker_as_root(
    mode, tmp_path, twin_exercises, monkeypatch
):
    """The no-namespace paths forced as root (Gradescope's runner refuses namespaces): the
    worker has a user id of its own, no capability, no root-only file, no /proc environment of
    the grader's; the daemon it leaves to rewrite the results file is gone with its exercise
    and could not have written it; the twin keeps full marks."""
    if os.geteuid() != 0:
        pytest.skip("the grader drops privileges only where it runs as root")
    from grader.sandbox.client import Sandbox

    monkeypatch.setenv("GRADER_SANDBOX", "portable" if mode == "portable" else "fork")
    results = tmp_path / "results.json"
    results.write_text(RESULTS)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "manual_gradient.py").write_text(
        source("key_root_privileges")
        + "\n\n"
        + source("key_rewrite_results", results=str(results)).replace(KEY, "")
    )
    (sub / "twin.py").write_text(KEY)
    with Sandbox(namespaces=False).start() as sb:
        result = by_id(
            grade(submission_dir=sub, exercises=twin_exercises, config=CONFIG, sandbox=sb)
        )
        assert sb.isolation != "namespaces"
    ex = result["manual_gradient"]
    assert ex.status == "passed" and ex.score == ex.max_score, messages(ex)
    assert result["twin"].score == result["twin"].max_score
    time.sleep(0.3)
    assert named(DAEMON) == []
    assert results.read_text() == RESULTS


def remove_deep(folder: Path) -> None:
    """Remove a folder nested deeper than shutil.rmtree (and pytest's clean-up) can recurse."""
    chain = [folder]
    while (chain[-1] / "d").is_dir():
        chain.append(chain[-1] / "d")
    for path in reversed(chain):
        for child in path.iterdir():
            if not child.is_dir():
                child.unlink()
        path.rmdir()


def class_of_files(klass: Path, request) -> dict[str, tuple[str, list[str]]]:
    """Submissions a single file cannot hold, with their outcomes (see OUTCOMES)."""
    key_file = SOLUTIONS / "manual_gradient.py"
    out = {}

    def sub(name: str) -> Path:
        (klass / name).mkdir()
        return klass / name

    os.symlink(key_file, sub("link_to_key") / "manual_gradient.py")
    out["link_to_key"] = ("missing", [])
    target = sub("link_relative")
    os.symlink(os.path.relpath(key_file, target), target / "manual_gradient.py")
    out["link_relative"] = ("missing", [])
    os.symlink("../correct0/manual_gradient.py", sub("link_to_classmate") / "manual_gradient.py")
    out["link_to_classmate"] = ("missing", [])
    os.symlink("correct1", klass / "linked_folder")
    out["linked_folder"] = ("missing", [])
    os.symlink("/nonexistent/manual_gradient.py", sub("dangling_link") / "manual_gradient.py")
    out["dangling_link"] = ("missing", [])
    os.mkfifo(sub("fifo") / "manual_gradient.py")
    out["fifo"] = ("missing", [])
    (sub("folder_named_like_the_file") / "manual_gradient.py").mkdir()
    out["folder_named_like_the_file"] = ("missing", [])
    # siblings a worker would get in its scratch copy: never followed
    siblings = sub("sibling_links")
    (siblings / "manual_gradient.py").write_text(
        KEY + "\nimport os as _o\nif [n for n in ('secret.py', 'zero.py', 'answer.py') "
        "if _o.path.exists(n)]:\n    raise RuntimeError('a link was followed')\n"
    )
    os.symlink(
        "/etc/shadow" if os.path.exists("/etc/shadow") else "/etc/passwd", siblings / "secret.py"
    )
    os.symlink("/dev/zero", siblings / "zero.py")
    os.symlink(key_file, siblings / "answer.py")
    out["sibling_links"] = ("full", [])
    (sub("huge_source") / "manual_gradient.py").write_text(KEY + "#" * (3 * 2**20))
    out["huge_source"] = ("error", ["limit"])
    (sub("pathological_source") / "manual_gradient.py").write_text("x = " + "-" * 300_000 + "1\n")
    out["pathological_source"] = ("error", ["too large or too deeply nested"])
    deep = sub("deep_folders")
    for _ in range(1100):
        deep = deep / "d"
        os.mkdir(deep)
    (deep / "manual_gradient.py").write_text(KEY)
    out["deep_folders"] = ("missing", [])
    request.addfinalizer(lambda: remove_deep(klass / "deep_folders"))
    for raw in (b"caf\xe9-cp1252", b"evil\nname\x1b[31m"):
        os.mkdir(os.path.join(os.fsencode(klass), raw))
        with open(os.path.join(os.fsencode(klass), raw, b"manual_gradient.py"), "w") as f:
            f.write(KEY)
    out["caf\\xe9-cp1252"] = ("full", [])
    out["evil\\nname\\x1b[31m"] = ("full", [])
    return out


def test_a_class_of_hostile_and_correct_submissions(tmp_path, twin_exercises, sandbox, request):
    """Every case above, and the file-system ones, in one parallel batch with correct
    submissions: the batch completes within its limits, correct ones keep full marks, hostile
    ones get their outcome, its outputs parse and stay small and escape-free, nothing is left
    in /tmp or /dev/shm, and no process is left running."""
    from grader.batch import run as batch

    listeners = Listeners(tmp_path)
    klass = tmp_path / "class"
    klass.mkdir()
    cases = sorted(OUTCOMES)
    for case in cases:
        (klass / case).mkdir()
        (klass / case / "manual_gradient.py").write_text(
            source(case, listeners.port, listeners.path)
        )
    for i in range(3):
        (klass / f"correct{i}").mkdir()
        (klass / f"correct{i}" / "manual_gradient.py").write_text(KEY)
    files = class_of_files(klass, request)
    exercise = [e for e in twin_exercises if e.id == "manual_gradient"]
    out = tmp_path / "out"
    started = time.monotonic()
    done = batch.run(
        submissions_dir=klass,
        exercises=exercise,
        config=CONFIG,
        lang="en",
        root=ROOT,
        jobs=2,
        out=out,
    )
    elapsed = time.monotonic() - started
    assert not done.lost, done.lost
    results = {r.submission: r.exercises[0] for r in done.results}
    assert set(results) == set(cases) | set(files) | {"correct0", "correct1", "correct2"}
    for i in range(3):
        assert results[f"correct{i}"].score == results[f"correct{i}"].max_score
    for case in cases:
        assert_outcome(case, results[case], expected(case, sandbox)[0], [])
    for name, (status, words) in files.items():
        assert_outcome(name, results[name], status, words)
    # Sequentially this is the sum of the cases' limits; two jobs must take well under that.
    assert elapsed < len(cases) * CONFIG.time_per_exercise
    # The outputs: whole, parseable, ASCII-safe, without terminal escapes or forged lines.
    data = json.loads((out / "results.json").read_text(encoding="ascii"))
    assert len(data["submissions"]) == len(results)
    assert "\\x1b[32mTotal: 61/61" in (out / "results.json").read_text()
    ids = [d["submission"] for d in data["submissions"]]
    assert all(i.isprintable() for i in ids), ids  # no newline or escape forges a log line
    ET.parse(out / "junit.xml")
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        assert len(list(csv.reader(f))) == len(results) + 1
    for path in out.rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            assert b"\x1b" not in raw, path  # escapes are shown as \\x1b, never sent
            assert len(raw) < 4 * 2**20, (path, len(raw))
    sandbox._wait_ready()
    if sandbox.isolation == "namespaces":  # elsewhere, see test_no_process_survives_...
        time.sleep(0.2)
        assert all(processes_with(m) == [] for m in MARKERS)
        listeners.assert_untouched()
        assert leftovers() == []
    listeners.close()

"""The suite's own set-up (tests/conftest.py): how its tests share pytest-xdist's workers, and
the run's temporary folder."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile

import pytest


def in_a_worker(request) -> None:
    if not hasattr(request.config, "workerinput"):
        pytest.skip("the tests run in this process (-n 0)")


def test_a_modules_tests_run_in_one_worker(request):
    """Grouped by module before pytest-xdist reads the groups: its module-scoped fixtures (a
    graded class, a release) are built once, not in every worker."""
    in_a_worker(request)
    module = request.node.nodeid.split("::")[0]
    assert request.node.nodeid.endswith(f"@{module}")


@pytest.mark.spread
@pytest.mark.parametrize("case", ["a", "b"])
def test_a_spread_test_goes_to_any_worker(request, case):
    in_a_worker(request)
    assert "@" not in request.node.nodeid


def test_the_run_has_a_temporary_folder_of_its_own():
    """Tests that look at the machine's /tmp see nothing of another test of this run; the
    graders the tests start write theirs there too."""
    ours = os.environ["GRADER_TESTS_TMP"]
    assert tempfile.gettempdir() == os.environ["TMPDIR"] == ours
    assert os.path.basename(ours).startswith("grader-tests-")
    assert stat.S_IMODE(os.stat(ours).st_mode) == 0o1777  # workers of other users reach it
    child = subprocess.run(
        [sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == ours


def test_the_tests_collected_are_the_same_at_another_time(request):
    """pytest-xdist refuses a run whose workers collect different tests: a parameter id built
    from data that changes with the clock (a gzip header's timestamp) failed CI when the workers
    collected in different seconds. The same paths collected later, in another process, must
    give the same ids."""
    from conftest import COLLECTED

    ours = sorted(request.config.stash[COLLECTED])
    later = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
        ]
        + list(request.config.args),
        capture_output=True,
        text=True,
        cwd=request.config.invocation_params.dir,
    )
    assert later.returncode == 0, later.stdout[-2000:] + later.stderr[-2000:]
    theirs = sorted(line for line in later.stdout.splitlines() if "::" in line)
    changed = sorted(set(ours) ^ set(theirs))
    assert not changed, "collected differently:\n" + "\n".join(c[:300] for c in changed[:6])
    assert len(theirs) == len(ours) > 1

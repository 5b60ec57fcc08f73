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

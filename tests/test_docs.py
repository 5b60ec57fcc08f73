"""docs/authoring.md documents every check kind the registry holds, and the README's quick start is as the issue asks."""

from __future__ import annotations

from conftest import ROOT

from grader.checks import KINDS
from grader.loader import specfile

# The course's specs load their exercises' plugins, whose kinds join the registry.
specfile.discover(ROOT / "exercises", ROOT)
PLUGIN_KINDS = {
    "critic_penalty",
    "critic_param_grads",
    "critic_side_effects",
    "nan_source",
    "anomaly_restored",
    "training_run",
}

README = (ROOT / "README.md").read_text()
AUTHORING = (ROOT / "docs" / "authoring.md").read_text()


def test_every_kind_is_documented():
    assert PLUGIN_KINDS <= set(KINDS)  # the plugins' kinds are in the registry checked here
    missing = [name for name in KINDS if f"| `{name}` |" not in AUTHORING]
    assert missing == []


def test_constraint_marks_match_the_registry():
    for name, kind in KINDS.items():
        row = next(line for line in AUTHORING.splitlines() if line.startswith(f"| `{name}` |"))
        assert ("*constraint*" in row) == kind.constraint, name


QUICK_START = ("pip install -r requirements.txt", "python -m pytest")


def test_quick_start_has_the_two_commands_and_ci_runs_them_as_written():
    block = README.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert block.splitlines() == list(QUICK_START)
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert all(line in ci for line in QUICK_START), "run the README's lines as written"
    assert "torch==2.13.0" in (ROOT / "requirements.txt").read_text()


def test_requirements_hold_what_the_tests_import():
    """The README's install line is all the tests need: nothing they import is only in
    requirements-dev.txt (the linters)."""
    needed = {"nbclient", "ipykernel", "nbformat", "pytest", "pytest-xdist", "hypothesis"}
    names = {
        line.split("==")[0].split(">=")[0].split("<")[0].strip().lower()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert needed <= names, needed - names

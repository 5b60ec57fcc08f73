"""Shared fixtures: one sandbox for the whole run, a fast config, and grading helpers."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from grader.grading.grade import grade
from grader.loader import specfile
from grader.loader.config import Config, load
from grader.sandbox.client import Sandbox

# The run's own temporary folder: TMPDIR of this process, of its pytest-xdist workers (they
# inherit it) and of every grader a test starts, so that a test looking at the machine's /tmp
# (nothing left there, nothing new named torchinductor*) sees no file of another test of this
# run, however many run at once. Mode 1777 like /tmp: a root grader's workers, users of their
# own, reach their scratch copies in it. pytest's own tmp_path folders stay where they were.
if not os.environ.get("GRADER_TESTS_TMP"):
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
    _TMP = tempfile.mkdtemp(prefix="grader-tests-")
    os.chmod(_TMP, 0o1777)
    os.environ.update(GRADER_TESTS_TMP=_TMP, TMPDIR=_TMP, TEMP=_TMP, TMP=_TMP)
    atexit.register(shutil.rmtree, _TMP, True)
tempfile.tempdir = os.environ["GRADER_TESTS_TMP"]

# A cache of passed reference trials of this run only (subprocesses inherit it): the first load
# of each spec in a run is really tried, and the user's own cache is left alone.
_CACHE = tempfile.mkdtemp(prefix="grader-cache-tests-")
os.environ["GRADER_CACHE"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)

# One exercise at a time in each grader a test runs (grader.grading.grade.at_once): the run
# already has a process per core (pytest-xdist), as a batch has its --jobs, and two at once in
# each only compete (tests/cli, grading and authoring: 239 s against 180 s one at a time). The
# tests of grading at once ask for it (tests/grading/test_at_once.py, the Ctrl-C test).
os.environ.setdefault("GRADER_AT_ONCE", "1")

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "exercises"
SOLUTIONS = ROOT / "solutions"
COURSE = sorted(p.parent.name for p in EXERCISES.glob("*/exercise.yaml"))
COURSE_CONFIG = load(ROOT / "config.yaml")
"""The course's own config.yaml (its public seed and example count: what `check` grades with,
and what the course's committed examples hold)."""
"""The course's exercise ids (the folders of exercises/ with a spec), for tests parametrized by
exercise."""


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (the project's default, pyproject.toml): a worker per CPU this process may
    use, at most 4. Each test's grader runs processes of its own beside it, so more workers
    than CPUs only lengthen every call."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


COLLECTED = pytest.StashKey[list]()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the groups
def pytest_collection_modifyitems(config, items):
    """With pytest-xdist (`--dist loadgroup`), the tests of one module run in one worker, in
    order: its module-scoped fixtures (a graded class, a release) are built once. A test marked
    `spread` (a long parametrized one) goes to whichever worker is free instead, and one with
    an `xdist_group` of its own stays in that group (tests of one module that read one costly
    result per parameter: one worker computes it, once). The ids of all the tests collected,
    before `-k` or `-m` leave any out, stay in COLLECTED."""
    config.stash[COLLECTED] = [item.nodeid for item in items]
    for item in items:
        grouped = item.get_closest_marker("xdist_group") is not None
        if item.get_closest_marker("spread") is None and not grouped:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def run_grader(*args, cwd=ROOT, env=None, timeout=600, **kwargs):
    """`python -m grader ARGS` in its own process, as a user runs it, in cwd, with env (this
    process's environment where None); its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=cwd,
        env=os.environ if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


def plugin(exercise_id: str, name: str):
    """A module of the course's exercise plugin (exercises/<id>/plugin/<name>.py), imported as
    the grader imports it (grader.common.plugins)."""
    from grader.common import plugins

    return plugins.module(exercise_id, EXERCISES / exercise_id / plugins.FOLDER, name)


def find_check(exercise, check_id):
    """The check of an exercise with this id."""
    return next(c for c in exercise.checks if c.id == check_id)


@pytest.fixture(scope="session")
def sandbox():
    with Sandbox().start() as sb:
        yield sb


class _Shared:
    """The session's sandbox, handed to a command run in this process (grader.cli.main's
    `Sandbox().start()`): the command uses its template and workers as its own, and its end
    leaves it running for the next test."""

    def __init__(self, sandbox):
        self._sandbox = sandbox

    def start(self):
        return self

    def close(self) -> None:
        pass

    def __getattr__(self, name):
        return getattr(self._sandbox, name)


@pytest.fixture
def shared_template(sandbox, monkeypatch):
    """Commands run in this test's process (main([...])) grade with the session's template
    instead of starting one each: a template's start is 2.7 s of CPU (torch, torch._dynamo),
    and the tests of what a command shows, checks or writes ran 30 of them. How a command
    starts its own template, overlapping the grader's imports, is tested where the command runs
    as a student runs it (tests/cli/test_cli_errors.py, tests/release, tests/sandbox)."""
    from grader.sandbox import client

    monkeypatch.setattr(client, "Sandbox", lambda *args, **kwargs: _Shared(sandbox))


@pytest.fixture(scope="session")
def exercises():
    return {e.id: e for e in specfile.discover(EXERCISES, root=ROOT)}


@pytest.fixture(scope="session")
def starters(tmp_path_factory):
    """The committed starters (git HEAD), flat in a folder of their own: tests that grade a
    starter do not depend on what someone has since written in exercises/."""
    out = tmp_path_factory.mktemp("starters")
    for name in COURSE:
        rel = f"exercises/{name}/{name}.py"
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"HEAD:{rel}"], capture_output=True
        )
        if shown.returncode == 0:
            (out / f"{name}.py").write_bytes(shown.stdout)
    if not any(out.iterdir()):
        pytest.skip("the committed starters need a git checkout (git show HEAD:exercises/...)")
    return out


@pytest.fixture(scope="session")
def fast_config():
    """Fewer examples and short limits: the properties are the same, the audit covers depth."""
    return Config(examples=15, time_per_call=2.0, time_per_exercise=60.0)


@pytest.fixture
def fast(tmp_path, monkeypatch):
    """Command-line arguments for a fast, English config (the CLI tests)."""
    monkeypatch.setenv("COLUMNS", "200")  # no wrapping in the captured report
    path = tmp_path / "config.yaml"
    path.write_text("examples: 10\ntime_per_call: 2\nlanguage: en\n")
    return ["--config", str(path)]


@pytest.fixture
def working_copy(tmp_path, monkeypatch):
    """A fresh copy of the student's working copy (exercises/ with the starters, a fast English
    config), as a student gets it; returns its folder. The course view reads COLUMNS=80."""
    root = tmp_path / "course"
    shutil.copytree(EXERCISES, root / "exercises")
    (root / "config.yaml").write_text("examples: 10\ntime_per_call: 2\nlanguage: en\n")
    monkeypatch.setenv("COLUMNS", "80")
    return root


@pytest.fixture
def grade_files(tmp_path, sandbox, exercises, fast_config):
    """Grade a submission made of {relative path: source text}; returns the SubmissionResult."""

    def run(files: dict, ids=None, config=None, hidden=False):
        sub = tmp_path / "submission"
        if sub.exists():
            shutil.rmtree(sub)
        sub.mkdir()
        for name, text in files.items():
            path = sub / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, Path):
                shutil.copyfile(text, path)
            else:
                path.write_text(textwrap.dedent(text))
        chosen = [exercises[i] for i in (ids or sorted(exercises))]
        return grade(
            submission_dir=sub,
            exercises=chosen,
            config=config or fast_config,
            sandbox=sandbox,
            include_hidden=hidden,
        )

    return run


def hidden_only(mutant: Path) -> bool:
    """A mutant that only a hidden check catches (its docstring says which): a grading of the
    visible checks gives it full marks."""
    import ast

    doc = ast.get_docstring(ast.parse(Path(mutant).read_text(encoding="utf-8"))) or ""
    return "Only the hidden check" in doc


def mutant_folders(root: Path, ids, per: int = 2) -> dict:
    """A submission folder for each of the first `per` mutants of each exercise that the
    visible checks catch: name -> (folder, exercise id)."""
    out = {}
    for ex in ids:
        caught = [
            m for m in sorted((SOLUTIONS / "mutants" / ex).glob("*.py")) if not hidden_only(m)
        ]
        for mutant in caught[:per]:
            sub = root / f"{ex}-{mutant.stem}"
            sub.mkdir()
            (sub / f"{ex}.py").write_bytes(mutant.read_bytes())
            out[sub.name] = (sub, ex)
    return out


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty store of examples (and trees of hypothesis's runs) with a disk folder of this
    test's own; yields that folder."""
    from grader.grading import examples

    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GRADER_REPLAY", raising=False)
    examples.forget()
    yield tmp_path / "cache" / "examples"
    examples.forget()


@pytest.fixture
def draws(monkeypatch):
    """Counts the checks whose examples were really drawn (grader.grading.examples.draw)."""
    from grader.grading import examples

    drawn = []
    real = examples.draw

    def counted(exercise, check, *args):
        drawn.append((exercise.id, check.id))
        return real(exercise, check, *args)

    monkeypatch.setattr(examples, "draw", counted)
    return drawn


@pytest.fixture
def hypothesis_runs(monkeypatch):
    """Counts the grader's runs of hypothesis on a check (its last decorator, the seed's, is
    wrapped: the others stay on hypothesis's own test)."""
    from grader.grading import checkrun

    count = [0]
    real = checkrun.hseed

    def counted(seed):
        def wrap(test):
            seeded = real(seed)(test)

            def run():
                count[0] += 1
                return seeded()

            return run

        return wrap

    monkeypatch.setattr(checkrun, "hseed", counted)
    return count


def verdicts_of(result) -> dict:
    """A SubmissionResult as plain data with each exercise's `seconds` aside: what two gradings
    that must agree are compared on."""
    import dataclasses

    out = dataclasses.asdict(result)
    for ex in out["exercises"]:
        ex.pop("seconds", None)
    return out


def by_id(result):
    return {e.id: e for e in result.exercises}


def _drawn_with() -> str | None:
    from grader.loader import committed, specfile

    return committed.stamped_versions(
        specfile.load(EXERCISES / "custom_sigmoid" / "exercise.yaml")
    )


def _drawn_here() -> pytest.MarkDecorator:
    from grader.loader import committed

    stamped, here = _drawn_with(), committed.versions()
    return pytest.mark.skipif(
        stamped != here,
        reason=f"the course's committed examples were drawn with {stamped} (grader/torch/"
        f"hypothesis/numpy/Python), this environment has {here}: they are not read here "
        "(requirements.txt pins theirs)",
    )


drawn_here = _drawn_here()
"""Marks a test that needs the course's committed examples (exercises/<id>/examples.drawn) to
be read in this environment: another hypothesis or numpy draws its own."""


def course_copy(tmp_path, exercise_id: str = "custom_sigmoid"):
    """A copy of one exercise's folder (spec, starter, committed examples) under
    tmp_path/exercises: (its Exercise, the path of its committed examples)."""
    from grader.loader import committed

    folder = tmp_path / "exercises" / exercise_id
    shutil.copytree(EXERCISES / exercise_id, folder)
    return specfile.load(folder / "exercise.yaml"), folder / committed.FILE

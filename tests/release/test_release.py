"""`release`, end to end, in a teacher's project of one exercise with one hidden check.

The release's own `python -m grader` runs there as a student runs it (a subprocess, cwd = the
release); a class of three release copies, cloned as `gh classroom clone student-repos` lays them
out, is graded by the teacher's `batch`; the Gradescope zip grades one upload.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile

import pytest
from conftest import ROOT, SOLUTIONS

from grader.common.errors import GraderError
from grader.grading.grade import grade
from grader.loader import specfile
from grader.loader.config import Config
from grader.release import build as release_mod
from grader.release import leaks
from grader.release import selfcheck as releasecheck

EX = "custom_sigmoid"
HIDDEN = "forward_finite"
HIDDEN_NOTE = "wide inputs, up to 1e4"
# Few examples, and a time per call far above any honest call even on a loaded machine.
CONFIG = (
    "language: en\nexamples: 5\ntime_per_call: 15\ntime_per_exercise: 120\n"
    "gradebook: grades/gradebook.sqlite\n# the teacher's\ngrading_seed: 4242\n"
)
MUTANT = SOLUTIONS / "mutants" / EX / "overflow_forward.py"  # fails the hidden check
TEACHERS_LINK = "See [the teachers' guide](teachers.md#outputs)"
HIDDEN_COUNT = 1 + (ROOT / "exercises" / EX / "exercise.yaml").read_text().count("hidden: true")
"""The teacher's spec's own hidden checks, and forward_finite the fixture hides."""


def grader(*args, cwd, env=None):
    """`python -m grader ARGS` in cwd, with that folder's grader (as a student runs it)."""
    environ = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", COLUMNS="200", **(env or {}))
    environ.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=900,
    )


def output(proc):
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    """A teacher's project: the grader, custom_sigmoid with forward_finite hidden, its answer
    key, variants and mutants, tests/, benchmarks/ and a gradebook in config.yaml."""
    root = tmp_path_factory.mktemp("teacher") / "course"
    shutil.copytree(ROOT / "grader", root / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("requirements.txt", "pyproject.toml", "docs/students.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, root / name)
    with open(root / "docs" / "students.md", "a") as guide:  # a guide the release does not hold
        guide.write(f"\n{TEACHERS_LINK}.\n")
    (root / "config.yaml").write_text(CONFIG)
    spec = (ROOT / "exercises" / EX / "exercise.yaml").read_text()
    marked = spec.replace(
        f"  - id: {HIDDEN}\n", f"  # {HIDDEN_NOTE}\n  - id: {HIDDEN}\n    hidden: true\n", 1
    )
    assert marked != spec
    (root / "exercises" / EX).mkdir(parents=True)
    (root / "exercises" / EX / "exercise.yaml").write_text(marked)
    shutil.copyfile(ROOT / "exercises" / EX / f"{EX}.py", root / "exercises" / EX / f"{EX}.py")
    (root / "exercises" / "ORDER").write_text(f"{EX}\n")
    (root / "solutions").mkdir()
    shutil.copyfile(SOLUTIONS / f"{EX}.py", root / "solutions" / f"{EX}.py")
    for kind in ("variants", "mutants"):
        shutil.copytree(SOLUTIONS / kind / EX, root / "solutions" / kind / EX)
    for folder in ("tests", "benchmarks", "grades"):
        (root / folder).mkdir()
        (root / folder / "x.py").write_text("# teacher only\n")
    # Not declared (the spec names no `handout:`): left out, and named.
    shutil.copyfile(SOLUTIONS / f"{EX}.py", root / "exercises" / EX / "worked_example.py")
    (root / "exercises" / EX / "points.csv").write_text("x,y\n1,2\n")
    return root


@pytest.fixture(scope="module")
def teacher_spec(teacher):
    return specfile.load(teacher / "exercises" / EX / "exercise.yaml", teacher)


@pytest.fixture(scope="module")
def released(teacher):
    out = teacher.parent / "student"
    proc = grader("release", out, cwd=teacher)
    assert proc.returncode == 0, output(proc)
    text = " ".join(proc.stdout.split())
    assert "released 1 exercise(s)" in text and f"{HIDDEN_COUNT} hidden check(s)" in text
    assert "left out 2 file(s) the course does not declare" in text
    assert f"exercises/{EX}/points.csv exercises/{EX}/worked_example.py" in text
    return out


def row(exercise: dict, check_id: str) -> dict:
    return next(c for c in exercise["checks"] if c["id"] == check_id)


def copy_of(released, dest, answer=None):
    shutil.copytree(released, dest)
    if answer is not None:
        shutil.copyfile(answer, dest / "exercises" / EX / f"{EX}.py")
    return dest


def test_release_holds_the_students_files_and_nothing_of_the_teachers(released, teacher):
    names = {p.relative_to(released).as_posix() for p in released.rglob("*") if p.is_file()}
    assert {
        "README.md",
        ".gitignore",
        ".github/workflows/grader.yml",
        "config.yaml",
        "requirements.txt",
        "pyproject.toml",
        "exercises/ORDER",
        f"exercises/{EX}/{EX}.py",
        f"exercises/{EX}/exercise.yaml",
        "grader/__main__.py",
    } <= names
    assert not [
        n for n in names if n.split("/")[0] in ("solutions", "tests", "benchmarks", "grades")
    ]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".sqlite")]
    assert sorted(n for n in names if n.startswith(f"exercises/{EX}/")) == [
        f"exercises/{EX}/{EX}.py",
        f"exercises/{EX}/exercise.yaml",
        f"exercises/{EX}/recorded.pickle",
    ]
    assert not [n for n in names if n.endswith("plugin/teacher.py")]
    starter = f"exercises/{EX}/{EX}.py"
    assert (released / starter).read_bytes() == (teacher / starter).read_bytes()
    config = (released / "config.yaml").read_text()
    assert "gradebook: null" in config and "gradebook.sqlite" not in config
    assert "grading_seed" not in config and "4242" not in config
    readme = (released / "README.md").read_text()
    assert 'pip install "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu' in readme
    assert "python -m grader check custom_sigmoid" in readme and "{{" not in readme
    assert "## Bahasa Indonesia" in readme and "## English" in readme
    ignored = (released / ".gitignore").read_text().splitlines()
    assert ".grader-state.json" in ignored and "grader-plots/" in ignored
    workflow = (released / ".github/workflows/grader.yml").read_text()
    assert 'python -m grader check --feedback "$GITHUB_STEP_SUMMARY"' in workflow


def test_the_students_requirements_speak_to_students(released):
    text = (released / "requirements.txt").read_text()
    pins = [line for line in text.splitlines() if line and not line.startswith("#")]
    teacher = (ROOT / "requirements.txt").read_text().splitlines()
    needed = (
        "torch",
        "numpy",
        "hypothesis",
        "PyYAML",
        "rich",
        "nbformat",
        "ipython",
        "watchfiles",
    )
    assert [p.split("=")[0].split(">")[0] for p in pins] == list(needed)
    assert all(p in teacher for p in pins)  # the teacher's pins, as they are
    assert "torch==2.13.0" in pins
    assert "# matplotlib>=3.7" in text and "--plot" in text  # optional, one line to uncomment
    for teachers_word in (
        "pytest",
        "xdist",
        "copydetect",
        "examples.drawn",
        "grader draw",
        "tests",
    ):
        assert teachers_word not in text, teachers_word
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert "pip install -r requirements.txt" in text
    assert any("Pasang" in c for c in comments) and any("Install" in c for c in comments)


def test_the_readme_gives_both_ways_to_work_in_both_languages(released):
    readme = (released / "README.md").read_text()
    indonesian, english = readme.split("## English")
    for part in (indonesian, english):
        for said in (
            "exercises/<id>/<id>.py",
            "python -m grader",
            "notebooks/<id>.ipynb",
            'grader.check("<id>")',
            'grader.hint("<id>")',
            "grader.course()",
            "Colab",
            "REPO",
            "token",
            "git add exercises notebooks",
            "docs/students.md",
        ):
            assert said in part, said
    assert "Cara 2: di notebook" in indonesian and "Way 2: in a notebook" in english
    assert "the `.py` is graded and the report says the notebook was ignored" in english
    assert "`.py` yang dinilai dan laporan menyebutkan bahwa notebook diabaikan" in indonesian
    assert "comments and whitespace aside" in english and "the cells you ran" in english


def test_the_released_docs_link_only_to_what_the_release_holds(released, teacher):
    guide = (released / "docs" / "students.md").read_text()
    assert "](teachers.md" not in guide and "](speed.md" not in guide
    assert guide.endswith(f"\n{TEACHERS_LINK.replace('[', '').split('](')[0]}.\n")
    assert "[Install](#install)" in guide  # the guide's own anchors stay links
    releasecheck.check_links(released)


def test_the_link_check_refuses_a_link_the_release_cannot_follow(released, tmp_path):
    copy = copy_of(released, tmp_path / "copy")
    readme = (copy / "README.md").read_text()
    for planted, said in (
        ("[the teachers' guide](docs/teachers.md#outputs)", "docs/teachers.md#outputs, which"),
        ("[install](docs/students.md#no-such-heading)", "docs/students.md#no-such-heading: no"),
        ("![plot](grader-plots/x.png)", "grader-plots/x.png"),
        ("[up](../course/README.md)", "../course/README.md"),
    ):
        (copy / "README.md").write_text(readme + f"\nSee {planted}.\n")
        with pytest.raises(GraderError, match=re.escape(f"README.md links to {said}")):
            releasecheck.check_links(copy)
    # URLs, the page's own headings and code are not links to follow.
    (copy / "README.md").write_text(
        readme + "\n[torch](https://pytorch.org) [up](#english) `[x](nowhere.md)`\n"
        "```\n[y](nowhere.md)\n```\n"
    )
    releasecheck.check_links(copy)


def test_a_link_to_a_file_the_release_does_not_hold_becomes_its_text(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other\n")
    text = (
        "[a](teachers.md#x) [b](other.md) [c](#here) [d](https://x.org/a.md) "
        "`[e](teachers.md)`\n```\n[f](speed.md)\n```\n"
    )
    assert release_mod.unlink_missing(text, "docs/students.md", tmp_path) == (
        "a [b](other.md) [c](#here) [d](https://x.org/a.md) `[e](teachers.md)`\n"
        "```\n[f](speed.md)\n```\n"
    )


def test_every_command_in_the_exercises_text_runs_from_the_repository_root():
    """A text that names a file to run names it from the repository's top folder, where
    `python -m grader` works too; none sends a student into a folder first."""
    texts = {
        p.relative_to(ROOT).as_posix(): p.read_text()
        for pattern in ("exercises/*/*.py", "exercises/*/exercise.yaml", "notebooks/*.ipynb")
        for p in ROOT.glob(pattern)
    }
    texts["README.student.md"] = (release_mod.TEMPLATES / "README.student.md").read_text()
    texts["docs/students.md"] = (ROOT / "docs" / "students.md").read_text()
    ran = 0
    for name, text in texts.items():
        assert not re.search(r"`cd (?!\.\./autograd)", text), name
        for script in re.findall(r"`python3? ([\w./-]+\.py)\b", text):
            assert (ROOT / script).is_file(), f"{name}: `python {script}` from the top folder"
            ran += 1
    assert ran >= 2  # nan_debugging's starter and hint name one


def test_git_ignores_what_the_students_grader_writes_in_the_release(released, tmp_path):
    from grader.cli.hints import WRITTEN, Progress

    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copyfile(released / ".gitignore", copy / ".gitignore")
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    progress = Progress.of(copy)
    assert progress.path.name in WRITTEN
    written = [*WRITTEN, "grader-plots/custom_sigmoid.sigmoid.png", "result.json", "feedback.md"]
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", *written], cwd=copy, capture_output=True, text=True
    )
    assert proc.stdout.split() == written, proc.stderr


def test_no_spec_of_the_release_has_a_hidden_check(released, teacher_spec):
    path = released / "exercises" / EX / "exercise.yaml"
    public = specfile.load(path, released)
    assert not [c for c in public.checks if c.hidden] and public.hidden_checks == HIDDEN_COUNT
    assert [c.id for c in public.checks] == [c.id for c in teacher_spec.checks if not c.hidden]
    text = path.read_text()
    assert f"id: {HIDDEN}" not in text and HIDDEN_NOTE not in text and "hidden: true" not in text


def test_no_file_of_the_release_holds_a_line_of_solutions(released, teacher, teacher_spec):
    answers = leaks.answers(
        teacher / "solutions", releasecheck.given_lines(released, [teacher_spec])
    )
    assert len(answers) > 20  # lines that would count, so this can fail
    shared = releasecheck.shared_lines(released, [teacher_spec]) & answers.keys()
    assert leaks.scan(released, answers, shared=shared) == []


def test_the_release_refuses_a_planted_answer(released, teacher, teacher_spec, tmp_path):
    copy = copy_of(released, tmp_path / "copy")
    key_line = next(
        line
        for line in leaks.telling_lines(teacher / "solutions" / f"{EX}.py")
        if leaks.fingerprint(line) not in releasecheck.given_lines(copy, [teacher_spec])
    )
    with open(copy / "README.md", "a") as f:
        f.write(f"\n    {key_line}\n")
    with pytest.raises(GraderError, match=r"README\.md, line \d+.*solutions/custom_sigmoid\.py"):
        releasecheck.check_leaks(copy, teacher, [teacher_spec])


def test_the_release_refuses_planted_reference_code(released, teacher, teacher_spec, tmp_path):
    copy = copy_of(released, tmp_path / "copy")
    penalty = specfile.load(ROOT / "exercises" / "gradient_penalty" / "exercise.yaml", ROOT)
    code = penalty.plugin / "teacher.py"
    teacher_line = next(line for line in leaks.telling_lines(code) if "norm" in line)
    exercises = [teacher_spec, penalty]
    for planted, source in (
        (f"    {teacher_line}\n", "exercises/gradient_penalty/plugin/teacher.py"),
        ("y = 1 / (1 + torch.exp(-x))  # torch.sigmoid(x)\n", f"exercises/{EX}/exercise.yaml"),
    ):
        with open(copy / "README.md", "a") as f:
            f.write(planted)
        with pytest.raises(GraderError, match=r"README\.md, line \d+.*" + re.escape(source)):
            releasecheck.check_leaks(copy, teacher, exercises)
        shutil.copyfile(released / "README.md", copy / "README.md")
    releasecheck.check_leaks(copy, teacher, exercises)


def test_a_damaged_record_is_told_by_name_not_as_a_traceback(released, tmp_path):
    copy = copy_of(released, tmp_path / "damaged")
    (copy / "exercises" / EX / "recorded.pickle").write_bytes(b"not a record")
    proc = grader("check", cwd=copy)
    assert proc.returncode == 1, output(proc)
    text = " ".join(output(proc).split())
    assert (
        "Traceback" not in text and "recorded.pickle: the recorded examples cannot be read" in text
    )


@pytest.mark.parametrize(
    "command",
    [
        ["release", "OUT"],
        ["batch", "CLASS", "--out", "OUT"],
        ["gradescope", "OUT.zip"],
        ["validate"],
    ],
)
def test_the_teachers_commands_refuse_a_students_copy(released, tmp_path, command, capsys):
    from grader.cli.main import main

    (tmp_path / "CLASS" / "ana").mkdir(parents=True)
    args = [str(tmp_path / a) if a.isupper() or a.endswith(".zip") else a for a in command]
    code = main(["--exercises-dir", str(released / "exercises"), *args])
    captured = capsys.readouterr()
    text = " ".join((captured.err + captured.out).split())
    assert code == 2 and "Traceback" not in text, text
    assert f"{command[0]} needs the teacher's repository" in text and "students' copy" in text


def test_starters_score_zero_in_the_release(released, tmp_path):
    proc = grader(
        "check", "--json", tmp_path / "r.json", "--feedback", tmp_path / "f.md", cwd=released
    )
    assert proc.returncode == 1, output(proc)
    summary = (tmp_path / "f.md").read_text()  # what the students' workflow shows on GitHub
    assert "**Score: 0/" in summary and f"{HIDDEN_COUNT} hidden check(s) run only when" in summary
    assert "Traceback (most recent call last)" not in output(proc)
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["score"] == 0 and result["exercises"][0]["status"] != "missing"
    assert result["exercises"][0]["hidden_checks"] == HIDDEN_COUNT
    assert f"{HIDDEN_COUNT} hidden check(s) run only when the class is graded" in proc.stdout


def test_the_answer_key_gets_every_visible_point(released, teacher, tmp_path):
    solved = copy_of(released, tmp_path / "solved", teacher / "solutions" / f"{EX}.py")
    proc = grader(cwd=solved)
    assert proc.returncode == 0, output(proc)
    assert "All exercises done!" in proc.stdout


@pytest.fixture(scope="module")
def graded_class(released, teacher, tmp_path_factory):
    """ana solved it, budi handed in a mutant that fails the hidden check (and edited his
    spec, config and grader, and keeps an old answer elsewhere), citra touched nothing."""
    base = tmp_path_factory.mktemp("class")
    clones = base / "sigmoid-submissions"  # gh classroom clone student-repos, run in base
    ana = copy_of(released, clones / "sigmoid-ana", teacher / "solutions" / f"{EX}.py")
    budi = copy_of(released, clones / "sigmoid-budi", MUTANT)
    citra = copy_of(released, clones / "sigmoid-citra")
    for repo in (ana, budi, citra):
        (repo / ".git").mkdir()
        (repo / ".git" / f"{EX}.py").write_text("# not a submission's file\n")
    spec = budi / "exercises" / EX / "exercise.yaml"
    spec.write_text(spec.read_text().replace("points: ", "points: 10"))
    (budi / "config.yaml").write_text("examples: 1\nseed: 1\nlanguage: id\n")
    (budi / "grader" / "__init__.py").write_text("raise SystemExit('my own grader')\n")
    (budi / "old").mkdir()
    shutil.copyfile(teacher / "solutions" / f"{EX}.py", budi / "old" / f"{EX}.py")
    out = tmp_path_factory.mktemp("graded") / "out"
    proc = grader("batch", base, "--out", out, "--jobs", "2", cwd=teacher)
    assert proc.returncode == 0, output(proc)
    results = {
        r["submission"]: r for r in json.loads((out / "results.json").read_text())["submissions"]
    }
    return out, results, budi


def test_teacher_batch_runs_the_hidden_checks_on_every_copy(graded_class, teacher_spec):
    out, results, _ = graded_class
    assert sorted(results) == ["sigmoid-ana", "sigmoid-budi", "sigmoid-citra"]
    full = teacher_spec.max_points
    hidden = {name: row(r["exercises"][0], HIDDEN) for name, r in results.items()}
    assert all(c["hidden"] for c in hidden.values())
    assert all(r["max_score"] == full for r in results.values())
    assert results["sigmoid-ana"]["score"] == full and hidden["sigmoid-ana"]["status"] == "passed"
    budi = results["sigmoid-budi"]
    assert budi["exercises"][0]["file"] == f"exercises/{EX}/{EX}.py"
    assert hidden["sigmoid-budi"]["status"] == "failed" and 0 < budi["score"] < full
    assert results["sigmoid-citra"]["score"] == 0


def test_feedback_for_every_student_without_hidden_inputs(graded_class, teacher_spec, sandbox):
    out, results, budi = graded_class
    files = sorted(p.name for p in (out / "feedback").iterdir())
    assert files == ["sigmoid-ana.md", "sigmoid-budi.md", "sigmoid-citra.md"]
    text = (out / "feedback" / "sigmoid-budi.md").read_text()
    title = next(c for c in teacher_spec.checks if c.id == HIDDEN).title.en.replace("|", "\\|")
    score = f"Score: {results['sigmoid-budi']['score']:g}/{teacher_spec.max_points:g}"
    assert f"{title}: failed" in text and score in text.replace("**", "")
    # What the hidden check found, graded here without concealing: none of it is shown.
    config = Config(examples=5, time_per_call=15.0, language="en")
    raw = grade(
        submission_dir=budi,
        exercises=[teacher_spec],
        config=config,
        sandbox=sandbox,
        include_hidden=True,
    )
    found = next(c for c in raw.exercises[0].checks if c.id == HIDDEN)
    assert found.status == "failed" and found.counterexample
    for visible in results["sigmoid-budi"]["exercises"][0]["checks"]:
        if not visible["hidden"] and visible["counterexample"]:  # may draw the same input
            text = text.replace(visible["counterexample"], "")
    assert found.counterexample not in text and found.message.en not in text
    # Its hint too, shown or kept back by the feedback level: a hidden check is listed by
    # title and status only, so not even "There is a hint" points at it.
    hint = found.hint or found.held_hint
    assert hint is not None and hint.en not in text and "Hidden check (finite)" not in text
    assert "There is a hint" not in text.split("Hidden checks")[-1]
    for name in files:
        shown = (out / "feedback" / name).read_text()
        if name == "sigmoid-citra.md":  # the untouched starter: "not started", no check listed
            assert "Not started: " in shown and "Hidden checks" not in shown
        assert "tensor(" not in shown.split("Hidden checks")[-1]


def test_summary_counts_the_untouched_copy_apart_and_junit_never_skips(graded_class):
    out, _, _ = graded_class
    summary = (out / "summary.md").read_text()
    assert f"(`{EX}`) | 2/3 |" in summary and "untouched starter or empty 1" in summary
    assert f"| `{EX}.{HIDDEN}`" in summary and "| 1/2 | 50% |" in summary
    junit = ET.parse(out / "junit.xml").getroot()
    assert junit.find(".//skipped") is None
    citra = junit.find("testsuite[@name='sigmoid-citra']")
    assert int(citra.get("failures")) + int(citra.get("errors")) == int(citra.get("tests"))


def test_gradescope_zip_grades_one_upload(teacher, teacher_spec, tmp_path):
    zip_path = tmp_path / "autograder.zip"
    proc = grader("gradescope", zip_path, cwd=teacher)
    assert proc.returncode == 0, output(proc)
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
        modes = {i.filename: i.external_attr >> 16 for i in z.infolist()}
        z.extractall(tmp_path / "autograder" / "source")
    assert {
        "setup.sh",
        "run_autograder",
        "grader/__main__.py",
        "config.yaml",
        f"exercises/{EX}/exercise.yaml",
        "requirements.txt",
    } <= set(names)
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    assert not [n for n in names if n.split("/")[0] in ("solutions", "tests", "benchmarks")]
    assert (
        "hidden: true"
        in (tmp_path / "autograder/source/exercises" / EX / "exercise.yaml").read_text()
    )
    upload = tmp_path / "autograder" / "submission"
    upload.mkdir()
    shutil.copyfile(teacher / "solutions" / f"{EX}.py", upload / f"{EX}.py")
    run = subprocess.run(
        ["bash", str(tmp_path / "autograder/source/run_autograder")],
        env=dict(
            os.environ,
            AUTOGRADER_ROOT=str(tmp_path / "autograder"),
            PYTHON=sys.executable,
            PYTHONDONTWRITEBYTECODE="1",
        ),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads((tmp_path / "autograder/results/results.json").read_text())
    assert result["score"] == teacher_spec.max_points
    assert {t["visibility"] for t in result["tests"] if t["number"] == f"{EX}.{HIDDEN}"} == {
        "after_published"
    }


def test_release_refuses_a_folder_inside_the_project_or_not_empty(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    for out in (root / "student", root, tmp_path):
        with pytest.raises(GraderError, match="release: .*(inside|contains) the project"):
            release_mod.check_target(root, out, force=True)
    full = tmp_path / "student"
    (full / ".git").mkdir(parents=True)
    release_mod.check_target(root, full, force=False)  # only a .git: a fresh clone
    (full / "old.txt").write_text("x")
    with pytest.raises(GraderError, match="not empty.*--force"):
        release_mod.check_target(root, full, force=False)
    release_mod.check_target(root, full, force=True)
    staging = tmp_path / "staging"
    (staging / "exercises").mkdir(parents=True)
    (staging / "README.md").write_text("new")
    release_mod.install(staging, full)
    assert sorted(p.name for p in full.iterdir()) == [".git", "README.md", "exercises"]


def test_release_cli_refuses_a_folder_inside_the_project(teacher):
    proc = grader("release", teacher / "student", cwd=teacher)
    assert proc.returncode == 2 and "inside the project" in output(proc)
    assert not (teacher / "student").exists()


def test_a_starter_that_earns_points_stops_the_release_and_out_stays_as_it_was(teacher, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(teacher, course, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(course / "solutions" / f"{EX}.py", course / "exercises" / EX / f"{EX}.py")
    out = tmp_path / "student"
    (out / ".git").mkdir(parents=True)
    proc = grader("release", out, cwd=course)
    assert proc.returncode == 2, output(proc)
    assert f"exercises/{EX}/{EX}.py: the untouched starter scores" in " ".join(
        output(proc).split()
    )
    assert [p.name for p in out.iterdir()] == [".git"]


def test_gradescope_wants_a_zip_name(teacher_spec, tmp_path):
    from grader.release.autograder import build

    with pytest.raises(GraderError, match=r"\.zip"):
        build(root=tmp_path, exercises=[teacher_spec], path=tmp_path / "autograder.tar")


def test_a_plugin_ships_without_its_teacher_module(tmp_path):
    """The real course's plugins: the release holds each plugin's code but its teacher.py, and
    its self-check refuses a teacher.py planted back."""
    exercises = [
        specfile.load(ROOT / "exercises" / ex / "exercise.yaml", ROOT)
        for ex in ("gradient_penalty", "nan_debugging")
    ]
    release_mod.write_tree(root=ROOT, exercises=exercises, dest=tmp_path)
    for e in exercises:
        shipped = sorted(p.name for p in (tmp_path / "exercises" / e.id / "plugin").glob("*.py"))
        teacher_side = sorted(p.name for p in e.plugin.glob("*.py"))
        assert "teacher.py" in teacher_side and "kinds.py" in shipped and "probes.py" in shipped
        assert shipped == [n for n in teacher_side if n != "teacher.py"]
    releasecheck.check_layout(tmp_path)
    planted = tmp_path / "exercises" / "nan_debugging" / "plugin" / "teacher.py"
    shutil.copyfile(exercises[1].plugin / "teacher.py", planted)
    with pytest.raises(GraderError, match=r"exercises/nan_debugging/plugin/teacher\.py"):
        releasecheck.check_layout(tmp_path)

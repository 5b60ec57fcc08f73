""".github/workflows/grade-class.yml, the teacher's class workflow: it collects the Classroom
repositories with their history before any grading, grades the shards as of the deadline, and
only the collecting job sees the one secret a teacher sets (docs/teachers.md names it too)."""

import re
import subprocess

import yaml
from conftest import ROOT

TEXT = (ROOT / ".github/workflows/grade-class.yml").read_text()
WORKFLOW = yaml.safe_load(TEXT)
JOBS = WORKFLOW["jobs"]
SECRET = "CLASSROOM_TOKEN"


def inputs() -> dict:
    on = WORKFLOW.get("on", WORKFLOW.get(True))  # YAML 1.1 reads the key `on` as true
    return on["workflow_dispatch"]["inputs"]


def shard_step() -> dict:
    return next(s for s in JOBS["grade"]["steps"] if "grader batch" in s.get("run", ""))


def test_a_collecting_job_clones_the_classroom_repositories_before_grading():
    needs = JOBS["grade"]["needs"]
    assert needs == "collect" or "collect" in needs
    runs = "\n".join(s.get("run", "") for s in JOBS["collect"]["steps"])
    assert "gh extension install github/gh-classroom" in runs
    clone = re.search(r"gh classroom clone student-repos -a \"\$ASSIGNMENT\"[^\n]*", runs)
    assert clone and "--per-page 100" in clone.group(0)  # the default is only 30
    assert "--depth" not in runs  # full clones: the deadline needs each one's history
    # The repositories travel with their .git (an artifact upload leaves hidden folders out).
    assert "tar -czf class.tar.gz class" in runs
    grading = [s.get("run", "") for s in JOBS["grade"]["steps"]]
    extract = next(i for i, r in enumerate(grading) if "tar -xzf class.tar.gz" in r)
    assert extract < grading.index(shard_step()["run"])
    assert "assignment" in inputs() and "submissions" in inputs()


def test_the_shards_grade_as_of_the_deadline(tmp_path):
    step = shard_step()
    assert "deadline" in inputs() and not inputs()["deadline"].get("required", False)
    assert step["env"]["DEADLINE"] == "${{ inputs.deadline }}"
    assert "--deadline" in step["run"] and "--shard" in step["run"]
    # The step's script as bash runs it, with sudo standing in for the grader: the deadline
    # given reaches batch; none given, batch's own default (config.yaml's deadline:) applies.
    script = step["run"].replace("${{ matrix.shard }}", "1")
    assert "${{" not in script
    (tmp_path / "config.yaml").write_text("language: id\n")
    stub = 'sudo() { printf "%s\\n" "$@"; }\n'
    for deadline, expected in (("2026-12-10T23:59+07:00", True), ("", False)):
        proc = subprocess.run(
            ["bash", "-e", "-c", stub + script],
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "DEADLINE": deadline, "SEED": "", "SHARD": "1/4"},
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        args = proc.stdout.splitlines()
        assert args[args.index("-m") + 1 : args.index("-m") + 4] == ["grader", "batch", "class"]
        assert ("--deadline" in args) == expected
        if expected:
            assert args[args.index("--deadline") + 1] == deadline
        else:
            assert "No deadline" in proc.stdout


def test_one_secret_seen_by_the_collecting_job_only():
    used = set(re.findall(r"secrets\.([A-Za-z_]+)", TEXT))
    assert used == {SECRET}
    for name, job in JOBS.items():
        if name != "collect":
            assert "secrets." not in yaml.safe_dump(job), name
    header = TEXT.split("\nname:", 1)[0]
    assert SECRET in header and "`repo`" in header
    assert SECRET in (ROOT / "docs" / "teachers.md").read_text()


def test_the_merge_uploads_every_output_and_windows_still_runs():
    merge = JOBS["merge"]
    assert merge["needs"] == "grade"
    upload = next(s for s in merge["steps"] if "upload-artifact" in s.get("uses", ""))
    assert "out/class" in upload["with"]["path"]
    assert any("grader merge" in s.get("run", "") for s in merge["steps"])
    assert "windows" in JOBS and "windows" in JOBS["windows"]["runs-on"]


def test_the_windows_job_runs_tests_that_exist():
    runs = " ".join(s.get("run", "") for s in JOBS["windows"]["steps"])
    paths = re.findall(r"tests/\S+\.py", runs)
    assert paths and all((ROOT / p).is_file() for p in paths), paths

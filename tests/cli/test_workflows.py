"""The GitHub Actions files: the class workflow's gradebook survives a re-run and its merge job
installs no torch; the students' workflow grades the visible checks into the job summary."""

import yaml
from conftest import ROOT

CLASS = yaml.safe_load((ROOT / ".github/workflows/grade-class.yml").read_text())
STUDENT = yaml.safe_load((ROOT / "grader/templates/classroom.yml").read_text())


def steps(job):
    return job["steps"]


def test_gradebook_cache_key_is_new_on_every_attempt():
    caches = [s for s in steps(CLASS["jobs"]["merge"]) if "actions/cache" in s.get("uses", "")]
    assert len(caches) == 2
    for step in caches:  # a saved key cannot be saved again, so a re-run needs its own
        assert step["with"]["key"] == "gradebook-${{ github.run_id }}-${{ github.run_attempt }}"
    assert caches[0]["with"]["restore-keys"] == "gradebook-"


def test_merge_job_installs_no_torch():
    runs = " ".join(s.get("run", "") for s in steps(CLASS["jobs"]["merge"]))
    assert "pip install" in runs and "-r requirements.txt" not in runs and "torch" not in runs


def test_students_workflow_grades_every_push_into_the_job_summary():
    on = STUDENT.get("on", STUDENT.get(True))  # YAML 1.1 reads the key `on` as true
    assert "push" in on
    runs = [s.get("run", "") for s in steps(STUDENT["jobs"]["grade"])]
    assert 'python -m grader check --feedback "$GITHUB_STEP_SUMMARY"' in runs
    assert "pip install -r requirements.txt" in runs

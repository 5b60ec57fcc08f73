"""Where a class's submissions are, and which file of a release copy is graded."""

import pytest

from grader.batch import run as batch
from grader.common.errors import GraderError
from grader.submissions import files as submission


def repo(path, *files):
    for rel in files:
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text("x = 1\n")
    (path / ".git").mkdir(parents=True, exist_ok=True)
    return path


def test_the_folder_gh_classroom_cloned_into_is_the_class(tmp_path):
    clones = tmp_path / "latihan-autograd-submissions"
    for login in ("ana", "budi"):
        repo(clones / f"latihan-autograd-{login}", "exercises/ex/ex.py")
    (tmp_path / ".hidden").mkdir()
    for given in (tmp_path, clones):  # where it ran, or the folder it wrote
        tasks = batch.discover(given)
        assert [t.id for t in tasks] == ["latihan-autograd-ana", "latihan-autograd-budi"]
        assert all(t.path.parent == clones for t in tasks)


def test_two_assignments_are_refused_and_a_flat_class_stays_flat(tmp_path):
    for slug in ("a", "b"):
        repo(tmp_path / "two" / f"{slug}-submissions" / f"{slug}-ana", "ex.py")
    with pytest.raises(GraderError, match="2 assignments .*a-submissions, b-submissions"):
        batch.discover(tmp_path / "two")
    repo(tmp_path / "flat" / "student1", "ex.py")
    repo(tmp_path / "flat" / "x-submissions", "ex.py")  # a student's folder of that name
    assert [t.id for t in batch.discover(tmp_path / "flat")] == ["student1", "x-submissions"]


def test_a_release_copy_is_graded_by_its_exercises_folder(tmp_path):
    # The grader package of a copy may hold a module named like an exercise; an old copy may
    # lie elsewhere in the repository; the file in exercises/ is the one graded.
    copy = repo(
        tmp_path / "copy",
        "exercises/training/training.py",
        "grader/training.py",
        "grader/checks/training.py",
        "backup/training.py",
    )
    assert submission.find(copy, "training.py") == [copy / "exercises/training/training.py"]
    flat = repo(tmp_path / "flat", "a/training.py", "b/training.py")
    assert len(submission.find(flat, "training.py")) == 2  # ambiguous, as before
    moved = repo(tmp_path / "moved", "exercises/other/other.py", "training.py")
    assert submission.find(moved, "training.py") == [moved / "training.py"]

"""Where a class's submissions are: the folder `batch` is given, or the one inside it that
GitHub Classroom's `gh classroom clone student-repos` wrote.

That command clones every student's repository of an assignment into `<slug>-submissions/`,
one folder per repository named `<slug>-<login>` (a team's name for group assignments). Given
either that folder or the folder it was run in, `batch` grades one submission per repository,
named by the repository; each is a release copy (grader/release.py), graded by its exercise files
only (grader/submission.py, find).
"""

from __future__ import annotations

from pathlib import Path

from grader.common.errors import GraderError

SUFFIX = "-submissions"
"""gh classroom names its folder `<assignment slug>-submissions`."""


def subfolders(directory: Path) -> list[Path]:
    """The folders of a class folder, sorted by name; dot-folders (.git, ...) are not
    submissions."""
    return sorted(
        (p for p in Path(directory).iterdir() if p.is_dir() and not p.name.startswith(".")),
        key=lambda p: p.name,
    )


def class_folder(directory: Path) -> Path:
    """The folder whose subfolders are the submissions: `directory` itself, or, when every
    folder in it is a `<slug>-submissions` folder of gh classroom, that one folder."""
    directory = Path(directory)
    folders = subfolders(directory)
    clones = [p for p in folders if p.name.endswith(SUFFIX) and len(p.name) > len(SUFFIX)]
    if not folders or len(clones) != len(folders):
        return directory
    if len(clones) > 1:
        names = ", ".join(p.name for p in clones)
        raise GraderError(
            f"{directory} holds the student repositories of {len(clones)} "
            f"assignments ({names}); grade one at a time, e.g. "
            f"`python -m grader batch {clones[0]} --out out/`"
        )
    return clones[0]

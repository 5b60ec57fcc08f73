"""`python -m grader gradescope ZIP`: the Gradescope autograder, one zip built by one command.

The zip holds setup.sh and run_autograder at its top (grader/templates/gradescope/), the
grader, the teacher's specs with their hidden checks, the starters (so a summary can tell an
untouched file apart), config.yaml without the gradebook (its grading seed kept: Gradescope
grades as `batch` does) and requirements.txt without the test runner. Never solutions/, tests/
or benchmarks/: Gradescope runs the student's code in the same machine. run_autograder grades the submission as `batch` does and copies its Gradescope result
to /autograder/results/results.json.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from grader.common.errors import GraderError
from grader.release.build import PACKAGE, TEMPLATES, public_config, public_requirements
from grader.specs.model import Exercise

SCRIPTS = ("setup.sh", "run_autograder")
_SKIP = {"__pycache__"}


def _files(folder: Path):
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if (
            path.is_file()
            and not any(p in _SKIP or p.startswith(".") for p in rel.parts)
            and path.suffix != ".pyc"
        ):
            yield path, rel


def _add(z: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # same bytes every build
    info.external_attr = (0o755 if executable else 0o644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def build(*, root: Path, exercises: list[Exercise], path: Path) -> list[str]:
    """Write the autograder zip; returns the names it holds."""
    root, path = Path(root).resolve(), Path(path)
    if path.suffix != ".zip":
        raise GraderError(f"gradescope: {path}: expected a file name ending in .zip")
    if path.resolve().is_relative_to(root / "exercises"):
        raise GraderError(f"gradescope: {path} is inside exercises/; write it elsewhere")
    path.parent.mkdir(parents=True, exist_ok=True)
    names = []
    with zipfile.ZipFile(path, "w") as z:
        for script in SCRIPTS:
            _add(z, script, (TEMPLATES / "gradescope" / script).read_bytes(), executable=True)
        for file, rel in _files(PACKAGE):
            _add(z, f"grader/{rel.as_posix()}", file.read_bytes())
        for e in exercises:
            for file, rel in _files(e.path.parent):
                _add(z, f"exercises/{e.id}/{rel.as_posix()}", file.read_bytes())
        _add(z, "exercises/ORDER", "".join(f"{e.id}\n" for e in exercises).encode())
        if (root / "config.yaml").is_file():
            _add(
                z,
                "config.yaml",
                public_config(
                    (root / "config.yaml").read_text(encoding="utf-8"), grading_seed=True
                ).encode(),
            )
        if (root / "requirements.txt").is_file():
            _add(
                z,
                "requirements.txt",
                public_requirements((root / "requirements.txt").read_text()).encode(),
            )
        names = z.namelist()
    return names

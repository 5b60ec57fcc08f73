"""`python -m grader release OUT`: the students' repository, derived from the teacher's.

OUT gets exactly the files the course declares, never "every file in a folder" (declared()):
per exercise, the starter the spec names (`file:`, by default `<id>.py`), the files its
`handout:` names, the notebook starter `notebooks/<id>.ipynb` where there is one, the spec
without its hidden checks and without reference code (grader/loader/publicspec.py), the
recorded examples the students' grader judges with instead (grader/grading/recorded.py, drawn
with the config's public seed) and, for an exercise with a plugin, the plugin's code but its
teacher.py (the code that computes answers). Besides them: the grader package (its modules and
templates), the students' guide (docs/students.md, its links to files the release does not hold
written as their text: unlink_missing()), config.yaml without the teacher's gradebook and
grading seed, the students' requirements.txt (the teacher's pins under the students' comments:
student_requirements()), pyproject.toml, a bilingual README, a .gitignore and a GitHub Actions
workflow that grades the visible checks on every push (templates in grader/templates/). Whatever else an exercise's folder holds (a worked example, a
notebook, data) is left out, and left_out() names it. Nothing of solutions/, tests/ or
benchmarks/. The copy is built in a scratch folder and checked there (grader/release/selfcheck.py)
before anything is written to OUT, so a release that fails its checks leaves OUT as it was.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.common import plugins, yamlfile
from grader.common.errors import GraderError, SpecError
from grader.grading import plot, recorded
from grader.loader import committed, publicspec
from grader.loader import config as config_mod
from grader.release import selfcheck as releasecheck
from grader.specs.model import Exercise
from grader.submissions import answer

PACKAGE = Path(__file__).resolve().parents[1]
TEMPLATES = PACKAGE / "templates"
WORKFLOW = Path(".github") / "workflows" / "grader.yml"
KEEP = ".git"
"""What --force keeps in OUT: the history of the students' template repository."""
NOTEBOOKS = "notebooks"
"""The notebook starters' folder (grader.submissions.notebook writes them from the .py starters)."""
STUDENT_DOCS = ("docs/students.md",)
"""The guides the students' copy holds (the notebooks' text points at docs/students.md)."""
PACKAGE_DATA = ("templates",)
"""The grader package's folders of data files; of the rest, only its modules (.py) ship."""


@dataclass
class Release:
    out: Path
    exercises: list[str]
    hidden: dict[str, int]
    """Per exercise id: the hidden checks removed from its spec."""
    files: int
    recorded: dict[str, int]
    """Per exercise id: the examples recorded for its visible checks."""
    left_out: list[str]
    """The files of the released exercises' folders (and of notebooks/) the course does not
    declare, so not released (left_out())."""
    grading_seed: bool
    """Whether the teacher's config holds a grading seed apart from the public one."""


def release(
    *,
    root: Path,
    out: Path,
    exercises: list[Exercise],
    force: bool = False,
    python: str | None = None,
    on_step=None,
) -> Release:
    """Write the students' repository for these exercises to OUT, checked before it is written.

    on_step(text) is told what is being done (the starters' grading takes a while)."""
    root, out = Path(root).resolve(), Path(out)
    check_target(root, out, force)
    staging = Path(tempfile.mkdtemp(prefix="grader-release-"))
    config = config_mod.load_or_default(
        root / "config.yaml" if (root / "config.yaml").is_file() else None
    )
    try:
        hidden = write_tree(root=root, exercises=exercises, dest=staging)
        counts = write_records(exercises=exercises, dest=staging, config=config, on_step=on_step)
        releasecheck.verify(
            folder=staging, root=root, exercises=exercises, python=python, on_step=on_step
        )
        for cache in staging.rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)
        files = sum(1 for p in staging.rglob("*") if p.is_file())
        install(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Release(
        out=out,
        exercises=[e.id for e in exercises],
        hidden=hidden,
        files=files,
        recorded=counts,
        grading_seed=config.grading_seed is not None,
        left_out=left_out(root, exercises),
    )


def check_target(root: Path, out: Path, force: bool) -> None:
    """OUT lies outside the project and holds nothing (but a .git) unless --force."""
    o = out.resolve()
    if o == root or o.is_relative_to(root):
        raise GraderError(
            f"release: {out} is inside the project {root}; write the students' "
            f"copy outside it, e.g. ../{root.name}-student"
        )
    if root.is_relative_to(o):
        raise GraderError(
            f"release: {out} contains the project {root}; choose a new folder "
            f"outside it, e.g. ../{root.name}-student"
        )
    if o.exists() and not o.is_dir():
        raise GraderError(f"release: {out} is a file; give a folder")
    if not o.exists() or not [p for p in o.iterdir() if p.name != KEEP]:
        return
    if not force:
        raise GraderError(
            f"release: {out} is not empty; choose a new or empty folder, or add "
            f"--force to replace what is in it (its {KEEP} is kept)"
        )
    if o == Path.home().resolve() or o == Path(o.anchor):
        raise GraderError(
            f"release: refusing to replace the contents of {out}; choose a "
            "folder for the students' repository"
        )


def _skipped(path: Path) -> bool:
    """Caches and hidden files, never released nor reported."""
    return path.suffix == ".pyc" or any(
        p == "__pycache__" or p.startswith(".") for p in path.parts
    )


def package_files(package: Path = PACKAGE) -> list[Path]:
    """The grader package as released: its modules (.py, in folders with an __init__.py) and
    its data folders (PACKAGE_DATA), relative to the package."""
    out = []
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if not path.is_file() or path.is_symlink() or _skipped(rel):
            continue
        if rel.parts[0] in PACKAGE_DATA or (
            path.suffix == ".py"
            and all(
                (package / Path(*rel.parts[:k]) / "__init__.py").is_file()
                for k in range(len(rel.parts))
            )
        ):
            out.append(rel)
    return out


def _starter(exercise: Exercise) -> Path:
    """The exercise's starter; a missing one is the spec's error (`file:`, or its default)."""
    starter = exercise.path.parent / exercise.file
    if starter.is_file() and not starter.is_symlink():
        return starter
    node = yamlfile.load(exercise.path, f"exercises/{exercise.id}/{exercise.path.name}")
    fix = (
        f"the starter {exercise.file} is not a file beside this spec; write it (the release "
        f"hands it to the students), or name the starter in `file:`"
    )
    if "file" in node:
        raise node.error("file", fix)
    raise SpecError(node.file, None, "", fix + f" (the default is {exercise.id}.py)")


def declared(root: Path, exercises: list[Exercise]) -> dict[str, Path]:
    """The files the release copies as they are, by their path in the release: each exercise's
    starter, its `handout:` files, its plugin's code but teacher.py, its notebook starter
    (notebooks/<id>.ipynb) if there is one, and the students' guide. (The specs, recorded
    examples, config, README and the grader package are written apart.)"""
    out: dict[str, Path] = {}
    for e in exercises:
        folder, base = e.path.parent, f"exercises/{e.id}"
        out[f"{base}/{e.file}"] = _starter(e)
        for name in e.handout:
            out[f"{base}/{name}"] = folder / name
        if e.plugin is not None:
            for path in plugins.shipped(e.plugin):
                out[f"{base}/{plugins.FOLDER}/{path.relative_to(e.plugin).as_posix()}"] = path
        notebook = Path(root) / NOTEBOOKS / f"{e.id}.ipynb"
        if notebook.is_file() and not notebook.is_symlink():
            out[f"{NOTEBOOKS}/{notebook.name}"] = notebook
    for doc in STUDENT_DOCS:
        if (Path(root) / doc).is_file():
            out[doc] = Path(root) / doc
    return out


def left_out(root: Path, exercises: list[Exercise]) -> list[str]:
    """The files of the released exercises' folders, and of notebooks/, that the release does
    not hold, relative to root: not declared (a worked example, a notebook, data). The specs
    and each plugin's teacher.py, which the release holds in another form or never, are not
    named."""
    root = Path(root)
    taken = {p.resolve() for p in declared(root, exercises).values()}
    out = []
    folders = [e.path.parent for e in exercises] + [root / NOTEBOOKS]
    for e in exercises:
        taken.add(e.path.resolve())
        taken.add(
            committed.path(e).resolve()
        )  # the teacher's examples: the release records its own
        if e.plugin is not None:
            taken.add((e.plugin / plugins.TEACHER).resolve())
    every = {p.name for p in (root / "exercises").iterdir() if p.is_dir()}
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(root)
            if not path.is_file() or _skipped(path.relative_to(folder)):
                continue
            if path.resolve() in taken:
                continue
            if folder.name == NOTEBOOKS and path.stem in every:
                continue  # the notebook starter of an exercise not released this time
            out.append(rel.as_posix())
    return out


def write_tree(*, root: Path, exercises: list[Exercise], dest: Path) -> dict[str, int]:
    """The release's files under dest; returns the hidden checks removed per exercise."""
    for rel in package_files():
        (dest / "grader" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PACKAGE / rel, dest / "grader" / rel)
    for name, source in declared(root, exercises).items():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, dest / name)
    hidden = {}
    for e in exercises:
        target = dest / "exercises" / e.id
        target.mkdir(parents=True, exist_ok=True)
        text, hidden[e.id] = publicspec.public(
            e.path.read_text(encoding="utf-8"),
            recorded=recorded.RECORD_FILE,
            starter=answer.starter_code(e),
        )
        (target / e.path.name).write_text(text, encoding="utf-8")
    (dest / "exercises" / "ORDER").write_text("".join(f"{e.id}\n" for e in exercises))
    if (root / "config.yaml").is_file():
        (dest / "config.yaml").write_text(
            public_config((root / "config.yaml").read_text(encoding="utf-8")), encoding="utf-8"
        )
    requirements = ""
    if (root / "requirements.txt").is_file():
        requirements = student_requirements((root / "requirements.txt").read_text())
        (dest / "requirements.txt").write_text(requirements, encoding="utf-8")
    if (root / "pyproject.toml").is_file():
        shutil.copyfile(root / "pyproject.toml", dest / "pyproject.toml")
    (dest / "README.md").write_text(readme(exercises, hidden, requirements), encoding="utf-8")
    for doc in STUDENT_DOCS:
        if (dest / doc).is_file():
            text = (dest / doc).read_text(encoding="utf-8")
            (dest / doc).write_text(unlink_missing(text, doc, dest), encoding="utf-8")
    shutil.copyfile(TEMPLATES / "gitignore", dest / ".gitignore")
    (dest / WORKFLOW).parent.mkdir(parents=True)
    shutil.copyfile(TEMPLATES / "classroom.yml", dest / WORKFLOW)
    return hidden


def copy_plugin(exercise: Exercise, target: Path) -> None:
    """The exercise's plugin, if any, into target/plugin/: its code but the teacher's module,
    which computes answers (grader.common.plugins.TEACHER)."""
    if exercise.plugin is None:
        return
    for path in plugins.shipped(exercise.plugin):
        copy = target / plugins.FOLDER / path.relative_to(exercise.plugin)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)


def write_records(*, exercises: list[Exercise], dest: Path, config, on_step=None) -> dict:
    """Each exercise's recorded examples beside its released spec; returns their counts."""
    counts = {}
    for e in exercises:
        if on_step:
            on_step(f"recording the examples of {e.id} (seed {config.seed})")
        records = {
            c.id: recorded.record(e, c, c.examples or config.examples, config.seed)
            for c in recorded.recordable(e)
        }
        curves = {
            c.id: plot.reference_curve(e, c)
            for c in e.checks
            if not c.hidden and plot.plottable(c)
        }
        recorded.write(
            dest / "exercises" / e.id / recorded.RECORD_FILE, e, records, config.seed, curves
        )
        counts[e.id] = sum(len(d.inputs) for d in records.values())
    return counts


def public_config(text: str, grading_seed: bool = False) -> str:
    """The teacher's config.yaml with no gradebook (the teacher's grades stay theirs) and, unless
    grading_seed (the teacher's own autograder), no grading seed: the students' copy draws with
    the public seed only."""
    text = re.sub(r"(?m)^gradebook:.*$", "gradebook: null", text)
    if not grading_seed:
        text = re.sub(r"(?m)^(?:#[^\n]*\n)*grading_seed:.*(?:\n|$)", "", text)
    return text


TEACHERS_ONLY = ("pytest", "copydetect", "nbclient", "ipykernel")
"""Requirements students never need: the test runner and the kernel the tests run notebooks in,
and what only `batch` uses (the similarity report's library)."""
CLASS_ONLY = ("dulwich",)
"""What only grading a class of repositories uses (`batch --deadline` reads git objects with
it): the teacher's autograder keeps it, students' requirements leave it out."""


def public_requirements(text: str) -> str:
    """requirements.txt without what only teachers use (TEACHERS_ONLY), the teacher's comments
    kept (the Gradescope autograder's; the students' is student_requirements()). The comment lines right above a requirement dropped are
    its own (why it is there, how it is pinned): they go with it."""
    skip = re.compile(rf"\s*({'|'.join(TEACHERS_ONLY)})\b")
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        if skip.match(line):
            while out and out[-1].lstrip().startswith("#"):
                out.pop()
            continue
        out.append(line)
    return "".join(out)


STUDENT_REQUIREMENTS = """\
# Yang dibutuhkan penilai (`python -m grader`) di komputermu. Pasang torch versi CPU dulu (lihat
# README.md), lalu: pip install -r requirements.txt
# What the grader (`python -m grader`) needs on your machine. Install the CPU build of torch
# first (see README.md), then: pip install -r requirements.txt
"""
"""The head of the students' requirements.txt."""

STUDENT_NOTES = {
    "torch": (
        "# PyTorch, versi yang sama dengan penilai pengajarmu (versi CPU sudah cukup).\n"
        "# PyTorch, the version your teacher grades with (the CPU build is enough)."
    ),
    "numpy": (
        "# Dipatok pada versi pengajarmu, agar penilaimu bekerja persis seperti penilainya.\n"
        "# Pinned to your teacher's versions, so that your grader works exactly as theirs."
    ),
    "pyyaml": (
        "# Spesifikasi latihan (YAML) dan laporan di terminal.\n"
        "# The exercises' specs (YAML) and the report in the terminal."
    ),
    "nbformat": (
        '# Notebook (notebooks/<id>.ipynb) di Jupyter atau VS Code: grader.check("<id>").\n'
        '# Notebooks (notebooks/<id>.ipynb) in Jupyter or VS Code: grader.check("<id>").'
    ),
    "watchfiles": (
        "# `python -m grader watch` menilai ulang setiap kali kamu menyimpan file.\n"
        "# `python -m grader watch` grades again each time you save a file."
    ),
    "matplotlib": (
        "# Opsional: `python -m grader check <id> --plot` menggambar kurvamu dan kurva torch.\n"
        "# Optional: `python -m grader check <id> --plot` draws your curve and torch's."
    ),
}
"""The students' comment above a requirement of the teacher's file, by its name (the first of a
run of requirements with no comment between them speaks for the run)."""

OPTIONAL = ("matplotlib",)
"""Requirements students may install (a comment shows the line): --plot only."""

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def student_requirements(text: str) -> str:
    """The students' requirements.txt: the teacher's pins (every line that names a requirement),
    without what only teachers use (TEACHERS_ONLY) and with OPTIONAL ones commented out, under
    the students' comments (STUDENT_REQUIREMENTS, STUDENT_NOTES, in Bahasa Indonesia and
    English) instead of the teacher's (which speak of the course's tests and committed
    examples)."""
    pins = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        found = _NAME.match(line)
        if not line or line.startswith("#") or not found:
            continue
        name = found.group(1).lower().replace("_", "-")
        if any(name == t or name.startswith(t + "-") for t in TEACHERS_ONLY + CLASS_ONLY):
            continue  # pytest-xdist goes with pytest
        pins.append((name, line))
    out = [STUDENT_REQUIREMENTS]
    optional = []
    for name, line in pins:
        if name in OPTIONAL:
            optional.append((name, line))
            continue
        if name in STUDENT_NOTES:
            out.append(STUDENT_NOTES[name] + "\n")
        out.append(line + "\n")
    for name, line in optional:
        out.append(STUDENT_NOTES.get(name, "# Opsional / optional:") + "\n")
        out.append(f"# {line}\n")
    return "".join(out)


def unlink_missing(text: str, name: str, dest: Path) -> str:
    """A released Markdown file (`name`, relative to dest) with each relative link to a file the
    release does not hold (the teachers' guides) written as its text alone; links in code are
    code, left as they are."""
    folder = (dest / name).parent

    def keep(m: re.Match) -> str:
        target = releasecheck.relative_target(m.group("target"))
        if target is None or (folder / target).exists():
            return m.group(0)
        return m.group("text")

    return releasecheck.rewrite_links(text, keep)


def _torch(requirements: str) -> str:
    found = re.search(r"(?m)^\s*(torch\s*[=<>!~][^#\s]*)", requirements)
    return f'"{found.group(1)}"' if found else "torch"


def _table(exercises: list[Exercise], hidden: dict[str, int], lang: str) -> str:
    head = (
        "| id | Latihan | Poin | Pemeriksaan tersembunyi |"
        if lang == "id"
        else "| id | Exercise | Points | Hidden checks |"
    )
    rows = [head, "|---|---|--:|--:|"]
    for e in exercises:
        visible = sum(c.points for c in e.checks if not c.hidden and not c.bonus)
        title = e.title.get(lang).replace("|", "\\|")
        rows.append(f"| `{e.id}` | {title} | {visible:g} | {hidden.get(e.id, 0)} |")
    return "\n".join(rows)


def readme(exercises: list[Exercise], hidden: dict[str, int], requirements: str) -> str:
    text = (TEMPLATES / "README.student.md").read_text(encoding="utf-8")
    for key, value in (
        ("exercises_id", _table(exercises, hidden, "id")),
        ("exercises_en", _table(exercises, hidden, "en")),
        ("torch", _torch(requirements)),
        ("first", exercises[0].id if exercises else "ID"),
    ):
        text = text.replace("{{" + key + "}}", value)
    return text


def install(staging: Path, out: Path) -> None:
    """Replace what OUT holds (but its .git) with the checked release."""
    out.mkdir(parents=True, exist_ok=True)
    for entry in out.iterdir():
        if entry.name == KEEP:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    shutil.copytree(staging, out, dirs_exist_ok=True)

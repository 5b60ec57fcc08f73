"""A teacher adds an exercise, from `new` to a graded class: `new` scaffolds it in a copy of the
course, the teacher's texts fill its TODOs, the notebook starter is written again from the
edited .py, `validate` passes, `release` hands it out, and a class of GitHub Classroom clones of
that release (an answer in the .py, one in the notebook, one left as released) is graded by
`batch --deadline` at the scores the answers deserve. Every step is the command a teacher runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import term

ID = "tanh_gate"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TEXTS = {
    '"TODO judul dalam Bahasa Indonesia"': '"Gerbang tanh"',
    '"TODO title in English"': '"A tanh gate"',
    "topics: []": "topics: [requires_grad]",
    "TODO: apa yang ditulis siswa, dengan rujukan ke bagian kursus yang dilatih.": (
        "Tulis f(x) = x * tanh(x) untuk tensor x mana pun."
    ),
    "TODO: what the student writes, pointing at the course section it practises.": (
        "Write f(x) = x * tanh(x) for any tensor x."
    ),
    '"TODO petunjuk yang menuntun tanpa memberi jawabannya"': '"Lihat torch.tanh."',
    '"TODO a hint that leads without handing over the answer"': '"Look at torch.tanh."',
}
STARTER_TEXTS = {
    "TODO judul / TODO title.": "Gerbang tanh / a tanh gate.",
    "TODO: instruksi singkat dan bagian kursus yang dilatih.": "Tulis f(x) = x * tanh(x).",
    "TODO: short instructions and the course section practised.": "Write f(x) = x * tanh(x).",
}


def grader(*args, cwd) -> subprocess.CompletedProcess:
    """`python -m ...` in the teacher's repository (the course copy, with its grader/)."""
    env = dict(os.environ, COLUMNS="120")
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def fill(path, texts: dict[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    for todo, mine in texts.items():
        assert todo in text, (path, todo)
        text = text.replace(todo, mine)
    path.write_text(text, encoding="utf-8")


def test_a_new_exercise_from_new_to_a_graded_class(tmp_path):
    course = tmp_path / "course"
    for folder in ("exercises", "solutions", "notebooks", "docs", "grader"):
        shutil.copytree(
            term.ROOT / folder, course / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name in ("config.yaml", "requirements.txt", "pyproject.toml"):
        shutil.copy(term.ROOT / name, course / name)

    made = grader("grader", "new", ID, cwd=course)
    assert made.returncode == 0, made.stdout + made.stderr
    assert (course / "notebooks" / f"{ID}.ipynb").is_file()  # new writes the notebook too
    fill(course / "exercises" / ID / "exercise.yaml", TEXTS)
    fill(course / "exercises" / ID / f"{ID}.py", STARTER_TEXTS)
    stale = grader("grader", "validate", ID, cwd=course)
    assert stale.returncode == 1 and f"grader.submissions.notebook {ID}" in stale.stdout
    again = grader("grader.submissions.notebook", ID, cwd=course)
    assert again.returncode == 0, again.stdout + again.stderr
    audit = grader("grader", "validate", ID, cwd=course)
    assert audit.returncode == 0, audit.stdout[-3000:] + audit.stderr[-2000:]

    template = tmp_path / "template"
    released = grader("grader", "release", template, "--exercises", ID, cwd=course)
    assert released.returncode == 0, released.stdout[-3000:] + released.stderr[-2000:]
    notebook = json.loads((template / "notebooks" / f"{ID}.ipynb").read_text())
    assert "Gerbang tanh" in "".join("".join(c["source"]) for c in notebook["cells"])
    term.git(template, "init", "-q")
    term.git(template, "add", "-A")
    term.git(template, "commit", "-q", "-m", "Initial commit", when=term.HANDED_OUT)

    key = (course / "solutions" / f"{ID}.py").read_text()
    people = {
        "ana": term.Student("ana", [(term.ON_TIME, {term.py(ID): key})]),
        "budi": term.Student(
            "budi", [(term.ON_TIME, {term.nb(ID): term.in_notebook(template, ID, key)})]
        ),
        "citra": term.Student("citra", []),
    }
    term.build_class(template, tmp_path / "class", people)
    out = tmp_path / "out"
    graded = grader(
        "grader",
        "batch",
        tmp_path / "class",
        "--out",
        out,
        "--exercises",
        ID,
        "--deadline",
        term.DEADLINE,
        cwd=course,
    )
    assert graded.returncode == 0, graded.stdout[-3000:] + graded.stderr[-2000:]
    results = json.loads((out / "results.json").read_text())["submissions"]
    scores = {r["submission"].rsplit("-", 1)[-1]: r["score"] for r in results}
    full = results[0]["max_score"]
    assert full > 0 and scores == {"ana": full, "budi": full, "citra": 0}
    budi = next(r for r in results if r["submission"].endswith("budi"))["exercises"][0]
    assert budi["file"] == f"notebooks/{ID}.ipynb"

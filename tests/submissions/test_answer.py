"""Which file is an exercise's answer (grader.submissions.answer): a release's clone holds the
.py starter and the notebook starter side by side; a starter left as released is no answer; of
two answers, the .py is graded and the other named."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from conftest import ROOT, SOLUTIONS

from grader.common.errors import SpecError
from grader.loader import publicspec, specfile
from grader.report import statuswords
from grader.submissions import answer, notebook

ID = "custom_sigmoid"


@pytest.fixture
def clone(tmp_path):
    """A student's clone of a release, as handed out: exercises/<id>/<id>.py and
    notebooks/<id>.ipynb, both starters."""
    root = tmp_path / "clone"
    (root / "exercises" / ID).mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / ID / f"{ID}.py", root / "exercises" / ID)
    (root / "notebooks").mkdir()
    shutil.copy(ROOT / "notebooks" / f"{ID}.ipynb", root / "notebooks")
    return root


def answered_notebook(py_source: str, extra: list[str] = ()) -> str:
    nb = notebook.starter(py_source, ID)
    nb["cells"] += [notebook._codecell(c) for c in extra]
    return notebook.dumps(nb)


def rel(choice, root):
    graded = choice.path.relative_to(root).as_posix() if choice.path else None
    return graded, [(p.relative_to(root).as_posix(), why) for p, why in choice.ignored]


def test_a_fresh_clone_is_the_py_starter_untouched(clone, exercises):
    choice = answer.choose(clone, exercises[ID])
    assert rel(choice, clone) == (
        f"exercises/{ID}/{ID}.py",
        [(f"notebooks/{ID}.ipynb", answer.STARTER)],
    )
    assert choice.untouched and not choice.clash


def test_an_answer_in_the_py_is_graded_and_the_notebook_starter_is_no_answer(clone, exercises):
    shutil.copy(SOLUTIONS / f"{ID}.py", clone / "exercises" / ID / f"{ID}.py")
    choice = answer.choose(clone, exercises[ID])
    assert rel(choice, clone)[0] == f"exercises/{ID}/{ID}.py" and not choice.untouched
    assert statuswords.graded_note("x.py", [("nb.ipynb", answer.STARTER)], "en") is None


def test_an_answer_in_the_notebook_is_graded_and_said(clone, exercises):
    key = (SOLUTIONS / f"{ID}.py").read_text()
    (clone / "notebooks" / f"{ID}.ipynb").write_text(answered_notebook(key))
    choice = answer.choose(clone, exercises[ID])
    graded, ignored = rel(choice, clone)
    assert graded == f"notebooks/{ID}.ipynb"
    assert ignored == [(f"exercises/{ID}/{ID}.py", answer.STARTER)]
    note = statuswords.graded_note(graded, ignored, "id")
    assert note and "notebooks/custom_sigmoid.ipynb" in note and "notebookmu" in note


def test_a_notebook_downloaded_from_colab_anywhere_in_the_repository(clone, exercises):
    key = (SOLUTIONS / f"{ID}.py").read_text()
    (clone / f"{ID}.ipynb").write_text(answered_notebook(key))
    graded, ignored = rel(answer.choose(clone, exercises[ID]), clone)
    assert graded == f"{ID}.ipynb" and {why for _, why in ignored} == {answer.STARTER}


def test_both_changed_grade_the_py(clone, exercises):
    key = (SOLUTIONS / f"{ID}.py").read_text()
    (clone / "exercises" / ID / f"{ID}.py").write_text(key + "\nx = 1\n")
    (clone / "notebooks" / f"{ID}.ipynb").write_text(answered_notebook(key))
    graded, ignored = rel(answer.choose(clone, exercises[ID]), clone)
    assert graded == f"exercises/{ID}/{ID}.py"
    assert ignored == [(f"notebooks/{ID}.ipynb", answer.BOTH)]


def test_two_answers_of_one_kind_are_a_clash(tmp_path, exercises):
    key = (SOLUTIONS / f"{ID}.py").read_text()
    for folder in ("a", "b"):
        (tmp_path / "py" / folder).mkdir(parents=True)
        (tmp_path / "py" / folder / f"{ID}.py").write_text(key)
        (tmp_path / "nb" / folder).mkdir(parents=True)
        (tmp_path / "nb" / folder / f"{ID}.ipynb").write_text(answered_notebook(key))
    for kind in ("py", "nb"):
        choice = answer.choose(tmp_path / kind, exercises[ID])
        assert choice.path is None and len(choice.clash) == 2 and choice.found
    # two untouched copies of the starter beside one answer: the answer, no clash
    shutil.copy(ROOT / "exercises" / ID / f"{ID}.py", tmp_path / "nb" / f"{ID}.py")
    (tmp_path / "nb" / "b" / f"{ID}.ipynb").write_text(answered_notebook(key))
    starter_nb = (ROOT / "notebooks" / f"{ID}.ipynb").read_text()
    (tmp_path / "nb" / "a" / f"{ID}.ipynb").write_text(starter_nb)
    graded, _ = rel(answer.choose(tmp_path / "nb", exercises[ID]), tmp_path / "nb")
    assert graded == f"b/{ID}.ipynb"


def test_missing_is_nothing_found(tmp_path, exercises):
    choice = answer.choose(tmp_path, exercises[ID])
    assert choice.path is None and not choice.found


def test_what_does_not_make_an_answer(exercises):
    """Docstrings, comments, blank lines, the set-up cell's REPO, outputs, run counts and cells
    split another way are not an answer; a changed constant or an added line is."""
    starter = (ROOT / "exercises" / ID / f"{ID}.py").read_text()
    digest = answer.starter_code(exercises[ID])
    assert answer.code_digest(starter) == digest
    retold = starter.replace('"""', '"""Catatan saya. ', 1).replace("\n\n", "\n\n# hmm\n\n", 1)
    assert retold != starter and answer.code_digest(retold) == digest
    nb = json.loads((ROOT / "notebooks" / f"{ID}.ipynb").read_text())
    nb["cells"][0]["source"] = [
        line.replace('REPO = ""', 'REPO = "https://github.com/kelas/latihan-ana"')
        for line in nb["cells"][0]["source"]
    ]
    code_cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    code_cells[1]["execution_count"] = 3
    code_cells[1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}]
    merged = "\n".join("".join(c["source"]) for c in code_cells[1:-1])
    split_nb = dict(nb, cells=[nb["cells"][0], notebook._codecell(merged), nb["cells"][-1]])
    for doc in (nb, split_nb):
        source = notebook.to_source(json.dumps(doc).encode())
        assert answer.code_digest(source) == digest
    changed = starter.replace("raise NotImplementedError", "return None  # raise", 1)
    assert answer.code_digest(changed) != digest
    assert answer.code_digest(starter + "\nprint(1)\n") != digest
    assert answer.code_digest("def f(:\n") is None  # unparsable: always an answer


def test_a_release_records_the_starter_for_the_clone_where_the_py_is_the_students(
    clone, exercises
):
    """In a release the starter's own file becomes the student's: the spec carries its digest."""
    spec = exercises[ID].path.read_text(encoding="utf-8")
    digest = answer.starter_code(exercises[ID])
    text, _ = publicspec.public(spec, recorded="recorded.pickle", starter=digest)
    assert yaml.safe_load(text)[publicspec.STARTER] == digest
    (clone / "exercises" / ID / "exercise.yaml").write_text(text, encoding="utf-8")
    (clone / "exercises" / ID / "recorded.pickle").write_bytes(b"")
    released = specfile.load(clone / "exercises" / ID / "exercise.yaml", root=clone)
    assert released.starter_digest == digest
    shutil.copy(SOLUTIONS / f"{ID}.py", clone / "exercises" / ID / f"{ID}.py")  # the answer
    assert answer.starter_code(released) == digest  # not the answer's own digest
    key = (SOLUTIONS / f"{ID}.py").read_text()
    (clone / "notebooks" / f"{ID}.ipynb").write_text(answered_notebook(key))
    graded, ignored = rel(answer.choose(clone, released), clone)
    assert graded == f"exercises/{ID}/{ID}.py" and ignored[0][1] == answer.BOTH
    bad = text.replace(digest, "not-a-digest")
    (clone / "exercises" / ID / "exercise.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(SpecError, match="starter_digest"):
        specfile.load(clone / "exercises" / ID / "exercise.yaml", root=clone)

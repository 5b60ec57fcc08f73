"""`grader new`: the scaffold of a new exercise loads, and its self-audit passes as written."""

from __future__ import annotations

import pytest
from conftest import ROOT

from grader.authoring import scaffold
from grader.authoring.validate import audit
from grader.cli.main import main
from grader.common.errors import GraderError
from grader.grading.grade import grade_exercise
from grader.loader import specfile


@pytest.mark.parametrize("kind", scaffold.KINDS)
def test_the_scaffold_loads_and_its_audit_passes(tmp_path, kind, sandbox, fast_config):
    files = scaffold.create(root=tmp_path, exercise_id="demo", kind=kind)
    assert all(f.exists() for f in files)
    ex = specfile.load(tmp_path / "exercises" / "demo" / "exercise.yaml", root=tmp_path)
    assert ex.id == "demo" and ex.max_points > 0
    assert (tmp_path / "exercises" / "ORDER").read_text().split() == ["demo"]
    mutants = sorted(p.name for p in (tmp_path / "solutions" / "mutants" / "demo").glob("*.py"))
    assert sum(m.startswith("trivial_") for m in mutants) == 2
    result = audit(
        exercise=ex, solutions=tmp_path / "solutions", config=fast_config, sandbox=sandbox
    )
    assert result.ok, [(t.file, t.result.score) for t in result.trials]
    # what docs/authoring.md asks (validate.GUIDE); the topics are the author's to name
    assert result.below_guide() == ["0 topics (the guide asks for 1)"]
    assert all(result.hidden_catches().values()) and result.mislabeled() == []
    trivial = [m for m in mutants if m.startswith("trivial_")]
    others = len(mutants) - len(trivial)
    assert result.count("mutant") == (others, others) and others >= 1
    assert result.count("trivial") == (len(trivial), len(trivial))
    starter = grade_exercise(
        exercise=ex,
        submission_dir=tmp_path / "exercises" / "demo",
        config=fast_config,
        sandbox=sandbox,
    )
    assert starter.score == 0


def test_new_appends_to_order_and_refuses_to_overwrite(tmp_path):
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "ORDER").write_text("first")
    scaffold.create(root=tmp_path, exercise_id="second")
    assert (tmp_path / "exercises" / "ORDER").read_text().split() == ["first", "second"]
    with pytest.raises(GraderError, match="already exists"):
        scaffold.create(root=tmp_path, exercise_id="second")


@pytest.mark.parametrize("bad, words", [("Bad-Id", "lowercase letters"), ("9x", "lowercase")])
def test_a_bad_id_is_refused_with_the_rule(tmp_path, bad, words):
    with pytest.raises(GraderError, match=words):
        scaffold.create(root=tmp_path, exercise_id=bad)


def test_the_cli_new_command(tmp_path, capsys):
    exdir = tmp_path / "exercises"
    exdir.mkdir()
    assert main(["--exercises-dir", str(exdir), "new", "demo", "--kind", "scenario"]) == 0
    out = capsys.readouterr().out
    assert "created exercises/demo/exercise.yaml" in out and "validate demo" in out
    assert main(["--exercises-dir", str(exdir), "new", "demo"]) == 2
    assert (ROOT / "exercises" / "demo").exists() is False

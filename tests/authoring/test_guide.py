"""What docs/authoring.md asks of an exercise (validate.GUIDE): `new` writes it, and `validate`
warns, without failing, where an exercise has fewer hidden checks, variants or mutants."""

from __future__ import annotations

import re

from conftest import ROOT

from grader.authoring import scaffold
from grader.authoring.validate import GUIDE
from grader.cli.main import main


def test_validate_warns_below_the_guide_and_passes(tmp_path, fast, capsys):
    scaffold.create(root=tmp_path, exercise_id="demo")
    spec = tmp_path / "exercises" / "demo" / "exercise.yaml"
    spec.write_text(re.sub(r"(?m)^topics: \[\].*$", "topics: [loss]", spec.read_text()))
    solutions = tmp_path / "solutions"
    (solutions / "variants" / "demo" / "sinh_over_cosh.py").unlink()
    (solutions / "mutants" / "demo" / "TODO_other_function.py").unlink()
    args = ["--exercises-dir", str(tmp_path / "exercises"), *fast]
    code = main(args + ["validate", "demo", "--solutions", str(solutions)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert (
        "warning: demo has 1 variants (the guide asks for 2), 5 mutants (the guide asks for 6)"
        in out
    )
    assert "MISS" not in out


def test_the_guide_states_the_counts_validate_warns_below():
    guide = (ROOT / "docs" / "authoring.md").read_text()
    assert GUIDE == {"topics": 1, "hidden checks": 1, "variants": 2, "mutants": 6}
    assert "1 hidden\ncheck, 2 variants, 6 mutants, 1 topic" in guide
    assert "`solutions/variants/<id>/*.py`, at least 2" in guide
    assert "`solutions/mutants/<id>/*.py`, at least 6" in guide
    assert "Only the hidden check CHECK_ID" in guide and "in six steps" in guide
    assert "shared/" not in guide

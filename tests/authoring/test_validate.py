"""`grader validate`: full marks for key and variants, lost points for mutants, exit 1 on a miss."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from conftest import SOLUTIONS

from grader.authoring.validate import audit
from grader.cli.main import main

pytestmark = pytest.mark.usefixtures("shared_template")  # see conftest

KEY = SOLUTIONS / "custom_sigmoid.py"
VARIANT = SOLUTIONS / "variants" / "custom_sigmoid" / "tanh_identity.py"
MUTANT = SOLUTIONS / "mutants" / "custom_sigmoid" / "missing_one_minus_y.py"
TRIVIAL = SOLUTIONS / "mutants" / "custom_sigmoid" / "trivial_zeros.py"


def _solutions(root, *, key=KEY, variants=(), mutants=(), rules=False):
    """A solutions folder holding copies of the given files, in the layout validate reads."""
    folder = root / "solutions"
    (folder / "variants" / "custom_sigmoid").mkdir(parents=True)
    (folder / "mutants" / "custom_sigmoid").mkdir(parents=True)
    if key is not None:
        shutil.copyfile(key, folder / "custom_sigmoid.py")
    for name, src in variants:
        shutil.copyfile(src, folder / "variants" / "custom_sigmoid" / name)
    for name, src in mutants:
        shutil.copyfile(src, folder / "mutants" / "custom_sigmoid" / name)
    if rules:
        # The spec's stated rules each need the mutant that breaks them (validate's rule audit).
        for src in sorted((SOLUTIONS / "mutants" / "custom_sigmoid").glob("*.py")):
            if "Breaks the rule" in src.read_text() and not src.name.startswith("trivial_"):
                shutil.copyfile(src, folder / "mutants" / "custom_sigmoid" / src.name)
    return folder


def test_sound_audit_exits_0_with_table(tmp_path, fast, capsys):
    folder = _solutions(
        tmp_path,
        rules=True,
        variants=[("v.py", VARIANT)],
        mutants=[("m.py", MUTANT), ("trivial_zeros.py", TRIVIAL)],
    )
    code = main(fast + ["validate", "custom_sigmoid", "--solutions", str(folder)])
    out = capsys.readouterr().out
    assert code == 0, out
    mutants = len(list((folder / "mutants" / "custom_sigmoid").glob("*.py"))) - 1
    assert (
        f"variants accepted 1/1, mutants rejected {mutants}/{mutants} (mutation score 100%), "
        "trivial answers held to 10% 1/1, starter at 0: yes"
    ) in out
    assert "backward_vjp" in out  # the table says which check caught the mutant
    assert "rule save_for_backward (Save the tensors backward needs" in out
    assert "broken alone by stashed_on_ctx.py (caught by saved_for_backward)" in out
    # the course's committed examples are for its own config, not this fast one
    assert "exercises/custom_sigmoid/examples.drawn holds no examples of" in out
    assert out.rstrip().splitlines()[-1].startswith("validate: all 1 exercise(s) pass the audit")


def test_a_stated_rule_no_mutant_breaks_is_a_miss(tmp_path, fast, capsys):
    folder = _solutions(
        tmp_path,
        rules=True,
        variants=[("v.py", VARIANT)],
        mutants=[("m.py", MUTANT), ("trivial_zeros.py", TRIVIAL)],
    )
    (folder / "mutants" / "custom_sigmoid" / "stashed_on_ctx.py").unlink()
    code = main(fast + ["validate", "custom_sigmoid", "--solutions", str(folder)])
    out = capsys.readouterr().out
    assert code == 1
    assert "MISS rule save_for_backward" in out and "Breaks the rule save_for_backward." in out
    assert "validate: 0 of 1 exercise(s) pass the audit; misses in custom_sigmoid" in out
    assert "starter" in out and "trivial" in out


def test_a_trivial_answer_scoring_over_a_tenth_is_a_miss(tmp_path, fast, capsys):
    # A mutant that loses one point of ten is a fine mutant but not a trivial answer.
    overflow = SOLUTIONS / "mutants" / "custom_sigmoid" / "overflow_backward.py"
    folder = _solutions(
        tmp_path,
        variants=[("v.py", VARIANT)],
        mutants=[("m.py", MUTANT), ("trivial_fake.py", overflow)],
    )
    code = main(fast + ["validate", "custom_sigmoid", "--solutions", str(folder)])
    out = capsys.readouterr().out
    assert code == 1
    assert "trivial answers held to 10% 0/1" in out
    assert "MISS (must be <= 1.1)" in out  # 10% of 11 points
    assert "points from: forward_value" in out  # which checks let it score


def test_a_starter_that_scores_is_a_miss(tmp_path, sandbox, exercises, fast_config):
    # An exercise whose starter is already the answer: validate must say so.
    exercise = exercises["custom_sigmoid"]
    folder = _solutions(
        tmp_path,
        variants=[("v.py", VARIANT)],
        mutants=[("m.py", MUTANT), ("trivial_zeros.py", TRIVIAL)],
    )
    starter_dir = tmp_path / "exercises" / "custom_sigmoid"
    starter_dir.mkdir(parents=True)
    shutil.copyfile(exercise.path, starter_dir / "exercise.yaml")
    shutil.copyfile(KEY, starter_dir / "custom_sigmoid.py")
    moved = dataclasses.replace(exercise, path=starter_dir / "exercise.yaml")
    result = audit(exercise=moved, solutions=folder, config=fast_config, sandbox=sandbox)
    starter = result.trials[-1]
    assert starter.role == "starter" and starter.result.score == starter.result.max_score
    assert not starter.ok and not result.ok
    assert [t.ok for t in result.trials if t.role != "starter"] == [True] * 4


def test_the_real_starter_and_trivial_answers_score_nothing(
    tmp_path, sandbox, exercises, fast_config
):
    folder = _solutions(
        tmp_path,
        variants=[("v.py", VARIANT)],
        mutants=[
            (p.name, p)
            for p in sorted((SOLUTIONS / "mutants" / "custom_sigmoid").glob("trivial_*"))
        ],
    )
    result = audit(
        exercise=exercises["custom_sigmoid"], solutions=folder, config=fast_config, sandbox=sandbox
    )
    scored = {t.role: t.result.score for t in result.trials if t.role in ("trivial", "starter")}
    assert result.count("trivial")[1] >= 2 and scored == {"trivial": 0, "starter": 0}


def test_wrong_variant_and_surviving_mutant_are_misses(tmp_path, fast, capsys):
    # Roles swapped: the mutant poses as a correct variant, the key as a known-wrong answer.
    folder = _solutions(tmp_path, variants=[("v.py", MUTANT)], mutants=[("m.py", KEY)])
    code = main(fast + ["validate", "custom_sigmoid", "--solutions", str(folder)])
    out = capsys.readouterr().out
    assert code == 1
    assert "variants accepted 0/1, mutants rejected 0/1 (mutation score 0%)" in out
    # Every miss says why, below the table: the checks the variant failed, with their messages.
    reasons = [
        line
        for line in out.splitlines()
        if line.startswith("MISS ") and not line.startswith("MISS rule ")
    ]
    assert len(reasons) == 2, out
    assert "MISS rule save_for_backward" in out  # no mutant here breaks the stated rules
    variant = next(r for r in reasons if "variants/custom_sigmoid/v.py" in r)
    assert "backward_vjp failed: The gradient of `x`" in variant
    mutant = next(r for r in reasons if "mutants/custom_sigmoid/m.py" in r)
    assert "got full marks: no check catches this mutant" in mutant


def test_missing_key_and_no_mutants_fail_the_audit(tmp_path, sandbox, exercises, fast_config):
    folder = _solutions(tmp_path, key=None, variants=[("v.py", VARIANT)])
    result = audit(
        exercise=exercises["custom_sigmoid"], solutions=folder, config=fast_config, sandbox=sandbox
    )
    key = result.trials[0]
    assert key.role == "key" and key.result.status == "missing" and not key.ok
    assert result.count("variant") == (1, 1) and result.count("mutant") == (0, 0)
    assert not result.ok


def test_an_audit_needs_a_mutant(tmp_path, fast, capsys):
    folder = _solutions(tmp_path, variants=[("v.py", VARIANT)])
    assert main(fast + ["validate", "custom_sigmoid", "--solutions", str(folder)]) == 1
    assert "needs at least one variant, one mutant and one trivial answer" in (
        capsys.readouterr().out
    )


def test_an_audit_needs_a_trivial_answer(tmp_path, fast, capsys):
    folder = _solutions(tmp_path, variants=[("v.py", VARIANT)], mutants=[("m.py", MUTANT)])
    assert main(fast + ["validate", "custom_sigmoid", "--solutions", str(folder)]) == 1
    assert "trivial_*.py" in capsys.readouterr().out


def test_a_hidden_check_must_catch_a_mutant_the_visible_checks_miss(
    tmp_path, sandbox, exercises, fast_config
):
    e = exercises["grad_clipping"]
    (hidden,) = [c.id for c in e.checks if c.hidden]
    mutants = SOLUTIONS / "mutants" / "grad_clipping"
    folder = tmp_path / "solutions"
    (folder / "mutants" / "grad_clipping").mkdir(parents=True)
    shutil.copyfile(SOLUTIONS / "grad_clipping.py", folder / "grad_clipping.py")
    shutil.copyfile(mutants / "per_parameter.py", folder / "mutants" / "grad_clipping" / "a.py")
    seen = audit(exercise=e, solutions=folder, config=fast_config, sandbox=sandbox)
    assert seen.hidden_catches() == {hidden: []} and seen.unjustified_hidden() == [hidden]
    assert not seen.ok
    shutil.copyfile(mutants / "float64_total.py", folder / "mutants" / "grad_clipping" / "b.py")
    seen = audit(exercise=e, solutions=folder, config=fast_config, sandbox=sandbox)
    assert [p.rsplit("/", 1)[-1] for p in seen.hidden_catches()[hidden]] == ["b.py"]
    assert seen.unjustified_hidden() == [] and seen.mislabeled() == []
    unsaid = folder / "mutants" / "grad_clipping" / "b.py"
    unsaid.write_text(unsaid.read_text().replace("Only the hidden check", "The hidden check"))
    said = folder / "mutants" / "grad_clipping" / "a.py"
    said.write_text(f'"""Only the hidden check {hidden} catches it."""\n' + said.read_text())
    seen = audit(exercise=e, solutions=folder, config=fast_config, sandbox=sandbox)
    problems = seen.mislabeled()
    assert len(problems) == 2, problems
    assert "a.py: its docstring says only" in problems[0] and "b.py: only a hidden" in problems[1]
    reasoned = dataclasses.replace(
        e,
        checks=tuple(dataclasses.replace(c, rationale="why") if c.hidden else c for c in e.checks),
    )
    seen.exercise = reasoned
    seen.trials = [t for t in seen.trials if not t.file.endswith("b.py")]
    assert seen.unjustified_hidden() == []  # a stated rationale stands in for the mutant

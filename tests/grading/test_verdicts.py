"""A student's verdicts are kept per unchanged file, and only those judged from the answer."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from conftest import SOLUTIONS, verdicts_of

from grader.cli.main import main
from grader.grading import grade as grading
from grader.grading import verdicts
from grader.grading.grade import grade
from grader.outcomes.results import CheckResult, ExerciseResult
from grader.specs.model import Text

pytestmark = pytest.mark.usefixtures("shared_template")  # see conftest

T = Text("t", "t")


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "verdicts"


@pytest.fixture
def graded(monkeypatch):
    """The exercises really graded (not shown from what was kept)."""
    ran = []
    real = grading.grade_exercise

    def counted(*, exercise, **kw):
        ran.append(exercise.id)
        return real(exercise=exercise, **kw)

    monkeypatch.setattr(grading, "grade_exercise", counted)
    return ran


def _sub(tmp_path, **files):
    """A working copy's layout: exercises/<id>/<id>.py."""
    sub = tmp_path / "sub"
    for name, source in files.items():
        (sub / name).mkdir(parents=True, exist_ok=True)
        (sub / name / f"{name}.py").write_bytes(source)
    return sub


def test_an_unchanged_file_shows_its_kept_verdict(
    tmp_path, kept, graded, sandbox, exercises, fast_config
):
    key = (SOLUTIONS / "grad_clipping.py").read_bytes()
    mutant = sorted((SOLUTIONS / "mutants" / "vector_backward").glob("*.py"))[0].read_bytes()
    sub = _sub(tmp_path, grad_clipping=key, vector_backward=mutant)
    chosen = [exercises["grad_clipping"], exercises["vector_backward"]]
    first = grade(
        submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True
    )
    assert graded == ["grad_clipping", "vector_backward"]
    assert [e.status for e in first.exercises] == ["passed", "failed"]
    again = grade(
        submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True
    )
    assert graded == ["grad_clipping", "vector_backward"]  # nothing graded again
    assert verdicts_of(again) == verdicts_of(first)
    (sub / "vector_backward" / "vector_backward.py").write_bytes(mutant + b"\n# edited\n")
    grade(submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True)
    assert graded[2:] == ["vector_backward"]  # only the changed file
    grade(submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox)
    assert graded[3:] == ["grad_clipping", "vector_backward"]  # remember=False: a grade
    # A module beside the file that it does not name: its scratch copy does not get it.
    (sub / "vector_backward" / "helpers.py").write_text("SCALE = 1\n")
    grade(submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True)
    assert graded[5:] == []
    # Once the file imports it, the helper is part of what is graded: changing it grades again.
    (sub / "vector_backward" / "vector_backward.py").write_bytes(mutant + b"\nimport helpers\n")
    grade(submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True)
    assert graded[5:] == ["vector_backward"]
    (sub / "vector_backward" / "helpers.py").write_text("SCALE = 2\n")
    grade(submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True)
    assert graded[6:] == ["vector_backward"]


def test_an_untouched_starter_keeps_its_verdict(
    tmp_path, kept, graded, sandbox, exercises, fast_config, starters
):
    # Every function raises NotImplementedError: the student's own exception, judged from the
    # answer, whatever a kind (gradient_penalty's critics) adds to the message.
    sub = _sub(tmp_path, **{p.stem: p.read_bytes() for p in sorted(starters.glob("*.py"))})
    chosen = [exercises[p.stem] for p in sorted(starters.glob("*.py"))]
    assert "gradient_penalty" in {e.id for e in chosen}
    first = grade(
        submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True
    )
    assert sorted(graded) == sorted(e.id for e in chosen)
    assert [e.id for e in first.exercises if not verdicts.keepable(e)] == []
    again = grade(
        submission_dir=sub, exercises=chosen, config=fast_config, sandbox=sandbox, remember=True
    )
    assert len(graded) == len(chosen)  # nothing graded again
    assert verdicts_of(again) == verdicts_of(first)


def test_another_config_or_checks_is_another_verdict(
    tmp_path, kept, graded, sandbox, exercises, fast_config
):
    sub = _sub(tmp_path, grad_clipping=(SOLUTIONS / "grad_clipping.py").read_bytes())
    ex = exercises["grad_clipping"]
    for config, chosen in [
        (fast_config, ex),
        (dataclasses.replace(fast_config, seed=5), ex),
        (fast_config, dataclasses.replace(ex, checks=ex.checks[:1])),
    ]:
        grade(
            submission_dir=sub, exercises=[chosen], config=config, sandbox=sandbox, remember=True
        )
    assert graded == ["grad_clipping"] * 3


def _result(*checks, status="failed", message=None):
    return ExerciseResult(id="e", title=T, status=status, checks=list(checks), message=message)


def _check(status, cause=None):
    return CheckResult(
        id="c", title=T, kind="value", status=status, points=0.0, max_points=1.0, cause=cause
    )


@pytest.mark.parametrize(
    "result, keep",
    [
        (_result(_check("passed"), status="passed"), True),
        (_result(_check("failed"), _check("skipped")), True),
        (_result(_check("error", cause="raised:ValueError:f")), True),  # the student's exception
        (_result(_check("timeout"), status="timeout"), False),
        (_result(_check("timeout"), _check("passed")), False),
        (_result(_check("error")), False),  # a lost worker, a grader error
        (_result(_check("error", cause="forbidden:torch.sigmoid:f")), False),
        (_result(_check("skipped"), status="error", message=T), False),  # import failed
        (_result(status="missing"), False),
    ],
)
def test_only_verdicts_judged_from_the_answer_are_kept(result, keep):
    assert verdicts.keepable(result) is keep


def test_check_fresh_grades_everything_again(tmp_path, kept, fast, monkeypatch, capsys):
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copyfile(SOLUTIONS / "grad_clipping.py", sub / "grad_clipping.py")
    ran = []
    real = grading.grade_exercise
    monkeypatch.setattr(grading, "grade_exercise", lambda **kw: ran.append(1) or real(**kw))
    base = [*fast, "check", "grad_clipping", "--submission", str(sub)]
    assert main(base) == 0
    assert main(base) == 0
    assert len(ran) == 1
    assert main([*fast, "check", "grad_clipping", "--fresh", "--submission", str(sub)]) == 0
    assert len(ran) == 2
    assert capsys.readouterr().out.count("Total:") == 3


def test_nothing_is_kept_with_the_cache_off(
    tmp_path, monkeypatch, graded, sandbox, exercises, fast_config
):
    monkeypatch.setenv("GRADER_CACHE", "off")
    sub = _sub(tmp_path, grad_clipping=(SOLUTIONS / "grad_clipping.py").read_bytes())
    for _ in range(2):
        grade(
            submission_dir=sub,
            exercises=[exercises["grad_clipping"]],
            config=fast_config,
            sandbox=sandbox,
            remember=True,
        )
    assert graded == ["grad_clipping"] * 2


def test_a_batch_grades_a_byte_identical_file_of_the_class_once(
    tmp_path, graded, sandbox, exercises, fast_config, monkeypatch
):
    """A batch process's Shared store: a second student's byte-identical file (and helpers)
    gets the verdict grading it would give, without being graded, wherever in their folder it
    lies (the result names their own path); one byte more is graded; nothing is written to
    disk, and a verdict that involved the machine is never shared."""
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    chosen = [exercises["grad_clipping"], exercises["vector_backward"]]
    mutant = sorted((SOLUTIONS / "mutants" / "vector_backward").glob("*.py"))[0].read_bytes()
    key = (SOLUTIONS / "grad_clipping.py").read_bytes()
    subs = {
        "ani": {"grad_clipping": key, "vector_backward": mutant},
        "budi": {"grad_clipping": key, "vector_backward": mutant},  # a copy of ani's
        "citra": {"grad_clipping": key + b"\n", "vector_backward": mutant},
    }

    def run(shared):
        out = {}
        for name, files in subs.items():
            sub = tmp_path / name
            for ex, source in files.items():
                where = sub / "src" if name == "budi" else sub  # budi nests his files
                where.mkdir(parents=True, exist_ok=True)
                (where / f"{ex}.py").write_bytes(source)
            result = grade(
                submission_dir=sub,
                exercises=chosen,
                config=fast_config,
                sandbox=sandbox,
                include_hidden=True,
                shared=shared,
            )
            out[name] = verdicts_of(result)
        return out

    alone = run(None)
    assert graded == ["grad_clipping", "vector_backward"] * 3
    graded.clear()
    shared = verdicts.Shared()
    together = run(shared)
    assert together == alone  # the same verdicts, messages and counterexamples
    assert {e["file"] for e in together["budi"]["exercises"]} == {
        "src/grad_clipping.py",
        "src/vector_backward.py",
    }
    # ani's both; citra's changed grad_clipping: her vector_backward names no file beside it,
    # so its scratch copy is ani's, byte for byte
    assert graded == ["grad_clipping", "vector_backward", "grad_clipping"]
    assert shared.reused == 3
    assert not (tmp_path / "cache" / "verdicts").exists()
    timeout = ExerciseResult(id="x", title=T, status="timeout", checks=[], message=T)
    shared.keep("k", timeout)
    assert shared.recall("k") is None

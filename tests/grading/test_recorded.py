"""Recorded checks (grader.grading.recorded): a release's examples and reference values as data, read back
safely, and judged without any reference code."""

import pickle
import shutil

import pytest
import torch
from conftest import SOLUTIONS, find_check, plugin

from grader.checks.base import Kind, NotRecorded
from grader.common.errors import GraderError, SpecError
from grader.grading import examples, plot, recorded
from grader.grading.grade import grade
from grader.loader import publicspec, specfile
from grader.loader.config import Config
from grader.release import build as release
from grader.specs import refs

CONFIG = Config(examples=8, time_per_call=15.0, time_per_exercise=120.0)


def released_exercise(folder, exercise, config=CONFIG):
    """exercise as a release holds it, in folder/exercises/<id>: the starter, the public spec,
    its plugin without teacher.py, the record (grader.release.build)."""
    target = folder / "exercises" / exercise.id
    target.mkdir(parents=True)
    shutil.copyfile(exercise.path.parent / exercise.file, target / exercise.file)
    release.copy_plugin(exercise, target)
    text, _ = publicspec.public(
        exercise.path.read_text(encoding="utf-8"), recorded=recorded.RECORD_FILE
    )
    (target / "exercise.yaml").write_text(text, encoding="utf-8")
    release.write_records(exercises=[exercise], dest=folder, config=config)
    public = specfile.load(target / "exercise.yaml")
    return public, recorded.load(public).checks


@pytest.fixture(scope="module")
def sigmoid(tmp_path_factory, exercises):
    return released_exercise(tmp_path_factory.mktemp("release"), exercises["custom_sigmoid"])


def test_the_public_spec_holds_no_reference_and_names_its_record(sigmoid, exercises):
    public, _ = sigmoid
    teacher = exercises["custom_sigmoid"]
    assert teacher.references and not public.references
    assert public.recorded is not None and public.recorded.name == recorded.RECORD_FILE
    assert [c.id for c in public.checks] == [c.id for c in teacher.checks if not c.hidden]
    assert "torch.sigmoid(x)" not in public.path.read_text()


def test_a_record_reads_back_as_written_and_is_drawn_again_the_same(sigmoid, exercises):
    public, loaded = sigmoid
    e = exercises["custom_sigmoid"]
    assert recorded.load(public).seed == CONFIG.seed
    assert set(loaded) == {c.id for c in recorded.recordable(e)}
    for check in recorded.recordable(e):
        count = check.examples or CONFIG.examples
        fresh, back = recorded.record(e, check, count, CONFIG.seed), loaded[check.id]
        assert len(back.inputs) == len(fresh.inputs) > count // 2
        assert all(examples.same(a, b) for a, b in zip(back.inputs, fresh.inputs))
        assert all(examples.same(a, b) for a, b in zip(back.memo, fresh.memo))


def test_examples_come_smallest_first_and_the_smallest_is_among_them(sigmoid, exercises):
    _, written = sigmoid
    for drawn in written.values():
        sizes = [recorded.size(x) for x in drawn.inputs]
        assert sizes == sorted(sizes)
    e = exercises["custom_sigmoid"]
    check = find_check(e, "forward_value")
    smallest = recorded._smallest(e, check, recorded.KINDS[check.kind])
    assert smallest and all(
        any(examples.same(s, x) for x in written[check.id].inputs) for s in smallest
    )
    assert recorded.size(smallest[0])[1] == 0  # the simplest example: zeros


def test_a_record_that_names_a_foreign_class_is_refused_without_running_it(sigmoid, tmp_path):
    public, _ = sigmoid
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    folder = tmp_path / "copy" / public.id
    shutil.copytree(public.path.parent, folder)
    (folder / recorded.RECORD_FILE).write_bytes(
        pickle.dumps({"format": recorded.FORMAT, "checks": Evil()})
    )
    copy = specfile.load(folder / "exercise.yaml")
    with pytest.raises(
        GraderError,
        match=r"recorded\.pickle: the recorded examples cannot be "
        r"read.*Get this exercise's folder again",
    ):
        recorded.load(copy)
    assert not marker.exists()


def test_a_missing_record_is_named_in_the_spec_error(sigmoid, tmp_path):
    public, _ = sigmoid
    folder = tmp_path / "copy" / public.id
    shutil.copytree(public.path.parent, folder)
    (folder / recorded.RECORD_FILE).unlink()
    with pytest.raises(SpecError, match=r"recorded: recorded\.pickle is missing"):
        specfile.load(folder / "exercise.yaml")


def test_a_recorded_memo_computes_nothing():
    ctx = recorded.Judging(None, None, {}, memo={"want": 1}, recorded=True)
    assert ctx.remember("want", lambda: 2) == 1
    with pytest.raises(NotRecorded):
        ctx.remember("other", lambda: 2)


@pytest.mark.parametrize(
    "exercise_id, mutant",
    [
        ("custom_sigmoid", "backward_sums.py"),
        ("gradient_penalty", "sum_not_mean.py"),
        ("graph_tracking", "one_level.py"),
        # Raises on the first failing example (a 0-d tensor has no shape[0]) and returns the
        # wrong values on the next ones, where a mistake would be named.
        ("loss_gradients", "batch_divisor.py"),
    ],
)
def test_judged_from_the_record_alone(
    exercise_id, mutant, exercises, sandbox, tmp_path, monkeypatch
):
    """The key passes and a mutant fails with every way to compute a reference cut off: the
    spec's expressions, scenario references and each plugin's teacher.py."""
    e = exercises[exercise_id]
    mutant_path = SOLUTIONS / "mutants" / exercise_id / mutant
    if not mutant_path.exists():
        pytest.skip(f"{mutant_path} is gone")
    public, _ = released_exercise(tmp_path / "release", e, Config(examples=6))

    def cut(*args, **kwargs):
        raise AssertionError("a reference was computed while grading a release")

    monkeypatch.setattr(refs, "evaluate", cut)
    monkeypatch.setattr("grader.checks.scenario.expected", cut)
    for name in ("reference", "suspects"):
        monkeypatch.setattr(plugin("gradient_penalty", "teacher"), name, cut)
    monkeypatch.setattr(plugin("nan_debugging", "teacher"), "first_nan_node", cut)
    monkeypatch.setattr(examples, "draw", cut)
    for answer, full in ((SOLUTIONS / e.file, True), (mutant_path, False)):
        sub = tmp_path / answer.stem
        sub.mkdir()
        shutil.copyfile(answer, sub / e.file)
        result = grade(submission_dir=sub, exercises=[public], config=CONFIG, sandbox=sandbox)
        ex = result.exercises[0]
        grader_errors = [
            c.message.en
            for c in ex.checks
            if c.message is not None and "not your fault" in c.message.en
        ]
        assert not grader_errors, grader_errors
        assert (ex.score == ex.max_score) is full, [(c.id, c.status) for c in ex.checks]
        assert result.environment["seed_source"] == "recorded"


def test_every_recordable_check_of_the_course_prepares_what_it_judges(exercises):
    """Kind.prepare gives each example a memo entry (the reference values judge reads), plain
    data (no graph attached). One drawn example per check, after the check's edges (a named
    edge, the layouts, a starting state): the release's self-check and .ci/release-course grade
    the whole course from its records."""
    for e in exercises.values():
        for check in recorded.recordable(e):
            kind = recorded.KINDS[check.kind]
            for inputs in examples.draw(e, check, kind, 1, 1):
                memo: dict = {}
                kind.prepare(recorded.Judging(e, check, examples.copied(inputs), memo=memo))
                assert bool(memo) == (type(kind).prepare is not Kind.prepare), (e.id, check.id)
                for value in memo.values():
                    assert not isinstance(value, torch.Tensor) or value.grad_fn is None


def test_plot_draws_the_recorded_curve_in_a_release(sigmoid, sandbox, tmp_path, monkeypatch):
    if not plot.available():
        pytest.skip("matplotlib is not installed")
    public, _ = sigmoid
    assert (
        set(recorded.load(public).curves)
        == {c.id for c in public.checks if plot.plottable(c)}
        != set()
    )
    monkeypatch.setattr(refs, "expected", None)  # nothing to evaluate in a release
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copyfile(
        SOLUTIONS / "mutants" / "custom_sigmoid" / "trivial_zeros.py", sub / "custom_sigmoid.py"
    )
    result = grade(submission_dir=sub, exercises=[public], config=CONFIG, sandbox=sandbox)
    pictures = plot.draw_failed(
        result=result,
        exercises=[public],
        submission_dir=sub,
        config=CONFIG,
        sandbox=sandbox,
        out=tmp_path / "plots",
        lang="en",
    )
    assert pictures and all(p.path.is_file() and p.mismatches > 0 for p in pictures)

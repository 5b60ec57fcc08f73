"""config.yaml: defaults, sizes, and errors that name the key."""

from __future__ import annotations

import pytest

from grader.common.errors import SpecError
from grader.loader import config


def write(tmp_path, text):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def test_shipped_config_loads():
    cfg = config.load(config.default_path())
    assert cfg.language in ("id", "en") and cfg.examples > 0
    assert cfg.memory_per_worker == 2 * 2**30 and cfg.output_cap == 2**20
    assert cfg.shrink_budget == 200 and not cfg.bounded_shrink  # only batch bounds it


def test_the_shrink_budget_is_read(tmp_path):
    assert config.load(write(tmp_path, "shrink_budget: 25\n")).shrink_budget == 25
    assert config.load(write(tmp_path, "seed: 1\n")).shrink_budget == 200


@pytest.mark.parametrize(
    "text, where",
    [
        ("language: fr\n", "line 1, language: expected id or en, got 'fr'"),
        ("examples: 0\n", "line 1, examples: expected a positive number"),
        ("examples: many\n", "line 1, examples: expected an integer, got 'many'"),
        ("time_per_call: -1\n", "time_per_call: expected a positive number"),
        ("memory_per_worker: lots\n", "memory_per_worker: expected a size such as 2GiB"),
        ("memory_per_worker: 1MiB\n", "memory_per_worker: too small for torch"),
        ("seed: 1\nexamplez: 3\n", "line 2, examplez: unknown key"),
        ("shrink_budget: 0\n", "line 1, shrink_budget: expected a whole number of calls"),
        ("shrink_budget: 2.5\n", "shrink_budget: expected a whole number of calls"),
        ("shrink_budget: yes\n", "shrink_budget: expected a whole number of calls"),
        ("bounded_shrink: true\n", "bounded_shrink: unknown key"),
    ],
)
def test_bad_values_name_the_key(tmp_path, text, where):
    with pytest.raises(SpecError) as err:
        config.load(write(tmp_path, text))
    assert where in str(err.value)


def test_sizes():
    assert config.parse_size("1536MiB") == 1536 * 2**20
    assert config.parse_size("2GiB") == 2**31
    assert config.parse_size(4096) == 4096
    assert config.parse_size("2 parsecs") is None


def test_missing_explicit_config_is_an_error(tmp_path):
    with pytest.raises(SpecError, match="config file not found"):
        config.load_or_default(tmp_path / "nope.yaml")


def test_the_grading_seed_comes_from_the_environment_then_the_config_then_the_public_seed(
    tmp_path, monkeypatch
):
    monkeypatch.delenv(config.GRADING_SEED_ENV, raising=False)
    public = config.load(write(tmp_path, "seed: 5\n"))
    assert public.grading_seed is None and config.grading_seed(public) == (5, "seed (public)")
    teacher = config.load(write(tmp_path, "seed: 5\ngrading_seed: 77\n"))
    assert config.grading_seed(teacher) == (77, "grading_seed")
    monkeypatch.setenv(config.GRADING_SEED_ENV, " 123 ")
    assert config.grading_seed(teacher) == (123, "$GRADER_GRADING_SEED")
    monkeypatch.setenv(config.GRADING_SEED_ENV, "secret")
    with pytest.raises(config.GraderError, match="GRADER_GRADING_SEED: expected an integer"):
        config.grading_seed(teacher)
    with pytest.raises(SpecError, match="seed_source: unknown key"):
        config.load(write(tmp_path, "seed_source: x\n"))


def test_the_course_config_has_a_grading_seed_apart_from_the_public_one():
    cfg = config.load(config.default_path())
    assert cfg.grading_seed is not None and cfg.grading_seed != cfg.seed


def test_deadlines_and_the_late_policy(tmp_path):
    cfg = config.load(
        write(
            tmp_path,
            'deadline: "2026-12-10T23:59+07:00"\nlate_policy: penalty\nlate_penalty_per_day: 0.1\n',
        )
    )
    assert (cfg.deadline, cfg.late_policy, cfg.late_penalty_per_day) == (
        "2026-12-10T23:59+07:00",
        "penalty",
        0.1,
    )
    per = config.load(
        write(
            tmp_path,
            "deadline:\n  default: 2026-12-17T23:59:00+07:00\n"
            '  manual_gradient: "2026-12-10T23:59+07:00"\n',
        )
    )
    assert per.deadline == {
        "default": "2026-12-17T23:59:00+07:00",  # YAML read it as a datetime: kept as text
        "manual_gradient": "2026-12-10T23:59+07:00",
    }


@pytest.mark.parametrize(
    "text, where",
    [
        ('deadline: "2026-12-10T23:59"\n', "line 1, deadline: expected a date and time with its"),
        ('deadline:\n  manual_gradient: "friday"\n', "line 2, deadline.manual_gradient: expected"),
        ("late_policy: lenient\n", "late_policy: expected none, penalty or latest"),
        ("late_penalty_per_day: 2\n", "late_penalty_per_day: expected a share between 0 and 1"),
    ],
)
def test_bad_deadlines_name_the_key(tmp_path, text, where):
    with pytest.raises(SpecError) as info:
        config.load(write(tmp_path, text))
    assert where in str(info.value)


def test_the_feedback_level_is_read_and_an_exercise_overrides_it_key_by_key(tmp_path):
    from types import SimpleNamespace

    from grader.specs.model import Feedback

    assert config.load(config.default_path()).feedback == Feedback("mistake", 3)
    assert config.load(write(tmp_path, "seed: 1\n")).feedback == Feedback()
    assert config.load(write(tmp_path, "feedback: recipe\n")).feedback == Feedback("recipe", 3)
    cfg = config.load(write(tmp_path, "feedback:\n  level: values\n  hints_after: null\n"))
    assert cfg.feedback == Feedback("values", None)
    own = SimpleNamespace(feedback={"level": "recipe"})
    assert cfg.feedback_for(own) == Feedback("recipe", None)
    assert cfg.feedback_for(SimpleNamespace(feedback={})) == cfg.feedback


@pytest.mark.parametrize(
    "text, where",
    [
        ("feedback: answers\n", "line 1, feedback: expected one of values, mistake, recipe"),
        ("feedback:\n  level: all\n", "line 2, feedback.level: expected one of values"),
        ("feedback:\n  hints_after: -1\n", "line 2, feedback.hints_after: expected a whole"),
        ("feedback:\n  hints_after: soon\n", "feedback.hints_after: expected a whole number"),
        ("feedback:\n  levels: mistake\n", "line 2, feedback.levels: unknown key"),
        ("feedback: [mistake]\n", "line 1, feedback: expected a level"),
    ],
)
def test_bad_feedback_names_the_key_and_line(tmp_path, text, where):
    with pytest.raises(SpecError) as err:
        config.load(write(tmp_path, text))
    assert where in str(err.value)

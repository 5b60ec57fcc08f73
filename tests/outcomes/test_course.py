"""The course as exercises: every topic taught, the topics' words fixed, each exercise complete."""

from __future__ import annotations

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS

from grader.loader import config as config_mod
from grader.loader import specfile

TOPICS = list(config_mod.load(ROOT / "config.yaml").topic_ids)  # the course's, as data
LOADED = specfile.discover(EXERCISES, root=ROOT)


def test_every_topic_is_taught_by_some_exercise():
    taught = {t for ex in LOADED for t in ex.topics}
    assert [t for t in TOPICS if t not in taught] == []


@pytest.mark.parametrize("ex", LOADED, ids=lambda e: e.id)
def test_an_exercise_lists_only_the_course_topics(ex):
    assert ex.topics and set(ex.topics) <= set(TOPICS), ex.topics


@pytest.mark.parametrize("ex", LOADED, ids=lambda e: e.id)
def test_an_exercise_has_a_key_variants_and_mutants(ex):
    assert (SOLUTIONS / ex.file).exists()
    assert len(list((SOLUTIONS / "variants" / ex.id).glob("*.py"))) >= 2
    assert len(list((SOLUTIONS / "mutants" / ex.id).glob("*.py"))) >= 6


def test_the_course_has_at_least_sixteen_exercises_in_order():
    order = (EXERCISES / "ORDER").read_text().split()
    assert len(order) >= 16 and sorted(order) == sorted(e.id for e in LOADED)


def test_every_exercise_keeps_a_hidden_check_for_the_teacher(exercises):
    """The grade never rests on the visible checks alone (validate proves what each one
    catches, or shows its rationale)."""
    assert all(any(c.hidden for c in e.checks) for e in exercises.values()), [
        e.id for e in exercises.values() if not any(c.hidden for c in e.checks)
    ]

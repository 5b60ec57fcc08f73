"""The rules list in a starter's docstring: written, rewritten in place, and a rule missing
from it found."""

from __future__ import annotations

import dataclasses
import shutil

from conftest import EXERCISES

from grader.authoring import stating
from grader.specs.model import Text


def _copy(exercise, tmp_path):
    folder = tmp_path / exercise.id
    folder.mkdir()
    shutil.copyfile(EXERCISES / exercise.id / exercise.file, folder / exercise.file)
    return dataclasses.replace(exercise, path=folder / "exercise.yaml")


def test_a_rule_the_starter_does_not_state_is_named_until_written(exercises, tmp_path):
    exercise = _copy(exercises["retain_graph"], tmp_path)
    assert stating.unstated(exercise) == []
    new = dict(exercise.rules, one_call=Text(id="Satu panggilan saja.", en="One call only."))
    exercise = dataclasses.replace(exercise, rules=new)
    assert stating.unstated(exercise) == ["one_call"]
    assert stating.write(exercise) is True
    assert stating.unstated(exercise) == []
    source = stating.starter(exercise).read_text(encoding="utf-8")
    assert source.count(stating.HEAD) == 1  # the old list replaced, not a second one
    assert stating.write(exercise) is False  # written once, the same after
    compile(source, "starter", "exec")


def test_the_list_names_the_principles_that_apply(exercises):
    text = stating.block(exercises["custom_sigmoid"])
    assert stating.PRINCIPLES["layouts"].en in " ".join(text.split())
    assert stating.PRINCIPLES["caller_objects"].id.split(",")[0] in text

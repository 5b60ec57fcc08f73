"""Topics are data: config.yaml names the course's topics, a spec may use only those, and an
unknown one is a spec error naming its file, line and the allowed ids (every command exits 2)."""

from __future__ import annotations

import shutil

import pytest
from conftest import EXERCISES, ROOT

from grader.cli.main import main
from grader.common.errors import SpecError
from grader.loader import config as config_mod
from grader.loader import specfile

HOOKS = """\
topics:
  - id: custom_function
    title: {id: "torch.autograd.Function", en: "torch.autograd.Function"}
    description: "a forward and backward of one's own"
  - id: hooks
    title: {id: "Hook tensor dan modul", en: "Tensor and module hooks"}
    description: "register_hook and module hooks, and removing them"
"""


def _course(tmp_path, topics_line: str, config: str | None = None):
    """A course of one exercise (custom_sigmoid) whose spec names `topics_line`'s topics."""
    folder = tmp_path / "exercises" / "custom_sigmoid"
    shutil.copytree(EXERCISES / "custom_sigmoid", folder)
    spec = folder / "exercise.yaml"
    lines = spec.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("topics:"))
    lines[at] = topics_line + "\n"
    spec.write_text("".join(lines))
    if config is not None:
        (tmp_path / "config.yaml").write_text(config)
    return spec, at + 1


def test_the_course_config_names_every_topic_its_exercises_use():
    config = config_mod.load(ROOT / "config.yaml")
    assert config.topics is not None
    assert all(t.title.id and t.title.en and t.description for t in config.topics)
    used = {t for ex in specfile.discover(EXERCISES, root=ROOT) for t in ex.topics}
    assert used <= set(config.topic_ids)


def test_a_config_without_topics_accepts_any_topic_as_before(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("language: en\n")
    config = config_mod.load(path)
    assert config.topics is None and config.topic_ids is None
    spec, _ = _course(tmp_path, "topics: [custom_function, hooks]")
    assert specfile.load(spec, root=tmp_path).topics == ("custom_function", "hooks")


def test_a_topic_the_config_adds_may_be_used(tmp_path):
    spec, _ = _course(tmp_path, "topics: [custom_function, hooks]", config=HOOKS)
    assert specfile.load(spec, root=tmp_path).topics == ("custom_function", "hooks")
    config = config_mod.load(tmp_path / "config.yaml")
    assert [t.title.en for t in config.topics or ()] == [
        "torch.autograd.Function",
        "Tensor and module hooks",
    ]


def test_an_unknown_topic_names_the_file_the_line_and_the_allowed_ids(tmp_path):
    spec, line = _course(
        tmp_path, "topics: [custom_function,\n  hooks]", config=HOOKS.replace("hooks", "hook_s")
    )
    with pytest.raises(SpecError) as err:
        specfile.load(spec, root=tmp_path)
    text = str(err.value)
    assert text.startswith(f"exercises/custom_sigmoid/exercise.yaml, line {line + 1}, topics[1]")
    assert "unknown topic 'hooks'" in text
    assert "custom_function, hook_s" in text and "config.yaml" in text


@pytest.mark.parametrize("command", [["list"], ["validate"], ["hint", "custom_sigmoid"]])
def test_every_command_exits_2_with_that_one_message(tmp_path, capsys, command):
    _course(
        tmp_path,
        "topics: [custom_function, hooks]",
        config=HOOKS.replace("id: hooks", "id: hook_s"),
    )
    config = tmp_path / "config.yaml"
    code = main(
        ["--exercises-dir", str(tmp_path / "exercises"), "--config", str(config), *command]
    )
    out = capsys.readouterr()
    assert code == 2
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and "unknown topic 'hooks'" in lines[0], out.err
    assert "exercise.yaml, line" in lines[0] and "custom_function, hook_s" in lines[0]


@pytest.mark.parametrize(
    "text, words",
    [
        ("topics: [hooks]\n", r"topics\[0\]: expected a topic"),
        (HOOKS + HOOKS.split("\n", 1)[1], "listed twice"),
        (HOOKS.replace("id: hooks", "id: Hooks"), "lowercase"),
        (HOOKS.replace("description", "descr"), "unknown key"),
    ],
)
def test_a_wrong_topics_section_is_named(tmp_path, text, words):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(SpecError, match=words):
        config_mod.load(path)

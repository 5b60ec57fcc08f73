"""config.yaml: defaults, sizes, and errors that name the key."""

from __future__ import annotations

import pytest

from grader import config
from grader.errors import SpecError


def write(tmp_path, text):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def test_shipped_config_loads():
    cfg = config.load(config.default_path())
    assert cfg.language in ("id", "en") and cfg.examples > 0
    assert cfg.memory_per_worker == 2 * 2**30 and cfg.output_cap == 2**20


@pytest.mark.parametrize("text, where", [
    ("language: fr\n", "line 1, language: expected id or en, got 'fr'"),
    ("examples: 0\n", "line 1, examples: expected a positive number"),
    ("examples: many\n", "line 1, examples: expected an integer, got 'many'"),
    ("time_per_call: -1\n", "time_per_call: expected a positive number"),
    ("memory_per_worker: lots\n", "memory_per_worker: expected a size such as 2GiB"),
    ("memory_per_worker: 1MiB\n", "memory_per_worker: too small for torch"),
    ("seed: 1\nexamplez: 3\n", "line 2, examplez: unknown key"),
])
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

"""A spec's references are tried when it loads: a typo is the author's error, with its line."""

from __future__ import annotations

import pytest
from conftest import EXERCISES

from grader.common.errors import SpecError
from grader.loader import specfile

GOOD = (EXERCISES / "manual_gradient" / "exercise.yaml").read_text()
F = "torch.exp(-x**2) * torch.sin(3*x) + torch.log(1 + x**2) * torch.sigmoid(x)"
G = "x * y**2 + torch.tanh(x * y)"
L = "((torch.relu(x @ W1.T + b1) @ W2.T + b2 - y) ** 2).mean()"


def _load(tmp_path, old, new):
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    folder = tmp_path / "manual_gradient"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if new in row)
    return folder / "exercise.yaml", line


@pytest.mark.parametrize(
    "old, new, name, cause",
    [
        (F, F.replace("torch.sin", "torch.sinn"), "f", "AttributeError"),  # a typo
        (G, G.replace("y**2", "z**2"), "g", "NameError"),  # an unknown name
        (L, L.replace("W2.T", "W2"), "L", "RuntimeError"),  # shapes that clash
        (G, "(x * y**2).detach()", "g", "RuntimeError"),  # no gradient
    ],
)
def test_a_reference_that_cannot_be_evaluated_is_a_spec_error(tmp_path, old, new, name, cause):
    path, line = _load(tmp_path, old, new)
    with pytest.raises(SpecError) as err:
        specfile.load(path)
    assert (err.value.line, err.value.key) == (line, f"references.{name}.expr")
    assert cause in err.value.message and "on the drawn example" in err.value.message
    assert "fix the expression" in err.value.message


def test_every_course_spec_passes_the_trial(monkeypatch):
    monkeypatch.setenv("GRADER_CACHE", "off")  # really tried, not remembered
    assert len(specfile.discover(EXERCISES)) >= 4

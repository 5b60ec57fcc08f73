"""Cache files hold plain data: tensors keep their values and layout; no other class is built."""

from __future__ import annotations

import os
import pickle

import pytest
import torch
from conftest import plugin

from grader.common import safepickle

critics = plugin("gradient_penalty", "critics")
ALLOWED = {(critics.Recipe.__module__, "Recipe")}


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(12, dtype=torch.float64).reshape(3, 4).t(),  # strided
        lambda: torch.arange(10, dtype=torch.float32)[1::3],  # offset and step
        lambda: torch.tensor([True, False, True]),
        lambda: torch.ones(2, 3, dtype=torch.bfloat16),
        lambda: torch.empty(0, 3, dtype=torch.float64),
        lambda: torch.tensor(2.5, dtype=torch.float64),
    ],
)
def test_tensors_keep_values_dtype_and_layout(make):
    t = make()
    back = safepickle.loads(safepickle.dumps({"t": [t]}), ALLOWED)["t"][0]
    assert back.dtype == t.dtype and back.shape == t.shape
    assert back.stride() == t.stride() and back.storage_offset() == t.storage_offset()
    assert torch.equal(back, t)


def test_requires_grad_travels_and_grad_history_does_not():
    leaf = torch.ones(2, dtype=torch.float64, requires_grad=True)
    back = safepickle.loads(safepickle.dumps(leaf), ALLOWED)
    assert back.requires_grad and back.is_leaf and back.grad_fn is None


def test_allowed_data_classes_are_built():
    recipe = critics.Recipe("mlp", "tanh", (3,), (4,))
    assert safepickle.loads(safepickle.dumps(recipe), ALLOWED) == recipe


def test_any_other_class_is_refused():
    class Boom:
        def __reduce__(self):
            return (os.system, ("echo pwned > /dev/null",))

    with pytest.raises(pickle.UnpicklingError, match="not allowed"):
        safepickle.loads(pickle.dumps(Boom()), ALLOWED)
    with pytest.raises(pickle.UnpicklingError):
        safepickle.loads(safepickle.dumps(critics.Recipe("mlp", "tanh", (3,), (4,))), set())


def test_a_tensor_subclass_is_not_written():
    class Sub(torch.Tensor):
        pass

    with pytest.raises(pickle.PicklingError):
        safepickle.dumps(torch.ones(2).as_subclass(Sub))


def test_save_is_atomic_and_reports_failure(tmp_path):
    path = tmp_path / "deep" / "value.pickle"
    assert safepickle.save(path, {"a": torch.ones(2)})
    assert torch.equal(safepickle.loads(path.read_bytes(), set())["a"], torch.ones(2))
    assert [p.name for p in path.parent.iterdir()] == ["value.pickle"]  # no temporary left
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert not safepickle.save(blocker / "value.pickle", 1)  # a file where a folder should be

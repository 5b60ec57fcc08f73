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


KEY = bytes(range(32))


def test_save_is_atomic_and_reports_failure(tmp_path):
    path = tmp_path / "deep" / "value.pickle"
    assert safepickle.save(path, {"a": torch.ones(2)}, key=KEY)
    assert torch.equal(safepickle.load(path, set(), key=KEY)["a"], torch.ones(2))
    assert [p.name for p in path.parent.iterdir()] == ["value.pickle"]  # no temporary left
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert not safepickle.save(blocker / "value.pickle", 1, key=KEY)  # a file, not a folder
    assert not safepickle.save(tmp_path / "nokey.pickle", 1, key=None)  # no key: not kept
    assert not (tmp_path / "nokey.pickle").exists()


def test_a_file_not_sealed_with_the_key_is_never_unpickled(tmp_path, monkeypatch):
    folder = tmp_path / "examples"
    path = folder / "entry.pickle"
    assert safepickle.save(path, {"a": torch.ones(2)}, key=KEY)
    sealed = path.read_bytes()
    unpickled = []
    real = safepickle.loads
    monkeypatch.setattr(safepickle, "loads", lambda *a: unpickled.append(a) or real(*a))
    forged = {
        "a plain pickle (the old format)": safepickle.dumps({"a": torch.zeros(2)}),
        "the seal kept, the value changed": sealed[: safepickle.MAC_BYTES]
        + safepickle.dumps({"a": torch.zeros(2)}),
        "no seal at all": b"",
        "sealed with another key": None,
    }
    for case, data in forged.items():
        if data is None:
            assert safepickle.save(path, {"a": torch.zeros(2)}, key=bytes(32))
        else:
            path.write_bytes(data)
        with pytest.raises(ValueError):
            safepickle.load(path, set(), key=KEY)
        assert unpickled == [], case
    # A genuine entry moved to another entry's name, or another folder's, is refused too.
    path.write_bytes(sealed)
    for other in (folder / "other.pickle", tmp_path / "verdicts" / "entry.pickle"):
        other.parent.mkdir(exist_ok=True)
        other.write_bytes(sealed)
        with pytest.raises(ValueError):
            safepickle.load(other, set(), key=KEY)
    assert unpickled == []
    assert torch.equal(safepickle.load(path, set(), key=KEY)["a"], torch.ones(2))


def test_a_huge_or_linked_cache_file_is_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(safepickle, "MAX_FILE", 1024)
    path = tmp_path / "big.pickle"
    path.write_bytes(bytes(4096))
    with pytest.raises(ValueError):
        safepickle.load(path, set(), key=KEY)
    assert not safepickle.save(tmp_path / "too.pickle", bytes(4096), key=KEY)
    target = tmp_path / "target.pickle"
    monkeypatch.undo()
    assert safepickle.save(target, 1, key=KEY)
    link = tmp_path / "link.pickle"
    link.symlink_to(target)
    with pytest.raises(OSError):
        safepickle.load(link, set(), key=KEY)

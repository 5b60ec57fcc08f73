"""Examples drawn once and replayed give the verdicts hypothesis gives alone, and are kept safely."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
import torch
from conftest import COURSE, SOLUTIONS, mutant_folders, verdicts_of

from grader.checks import KINDS
from grader.grading import examples
from grader.grading import grade as grading
from grader.grading.grade import grade
from grader.loader import committed, speccache
from grader.specs import strategies


@pytest.mark.spread
@pytest.mark.parametrize("exercise_id", COURSE)
def test_same_seed_same_verdicts_with_and_without_replay(
    exercise_id,
    tmp_path,
    monkeypatch,
    store,
    draws,
    hypothesis_runs,
    sandbox,
    exercises,
    fast_config,
):
    """Each exercise of the course: the answer key and two mutants (each a failure that
    hypothesis shrinks), graded by hypothesis alone, then replayed from a cold store and from a
    warm one, and once more on the trees of hypothesis's runs the warm one left
    (grader.grading.shrinks): every failing check walks a run to its end, without hypothesis."""
    subs = {"key": SOLUTIONS, **mutant_folders(tmp_path, [exercise_id])}
    chosen = [exercises[exercise_id]]

    def run():
        out = {}
        for name, where in subs.items():
            path, ids = (where, None) if name == "key" else where
            mine = [e for e in chosen if ids is None or e.id == ids]
            out[name] = verdicts_of(
                grade(
                    submission_dir=path,
                    exercises=mine,
                    config=fast_config,
                    sandbox=sandbox,
                    name=name,
                )
            )
        return out

    monkeypatch.setenv("GRADER_REPLAY", "off")
    alone = run()
    assert draws == []
    monkeypatch.delenv("GRADER_REPLAY")
    cold = run()
    dynamic = [
        (e, c) for e in chosen for c in e.checks if not KINDS[c.kind].static and not c.hidden
    ]
    # each drawn once, here or by the forked drawer (whose draws this process does not count)
    assert len(draws) == len(set(draws)) <= len(dynamic)
    kept = [
        (e, c, c.examples or fast_config.examples, strategies.seed_for(fast_config.seed, e, c))
        for e, c in dynamic
    ]
    # on disk, or in the course's committed examples (a check with an example count of its own
    # has the same name with this config: grader.loader.committed)
    assert all(examples.on_disk(examples.key(*k)) or committed.has(*k) for k in kept), (
        "a check's examples are kept nowhere a new process finds them"
    )
    examples.forget()  # a new process: the examples and references come from disk
    before = len(draws)
    warm = run()
    assert len(draws) == before
    hypothesis_runs[0] = 0
    walked = run()
    assert hypothesis_runs[0] == 0
    assert alone == cold == warm == walked
    for name, result in alone.items():  # the key keeps full marks, each mutant loses points
        assert all((e["status"] == "passed") == (name == "key") for e in result["exercises"])
    assert (
        sum(
            1
            for r in alone.values()
            for e in r["exercises"]
            for c in e["checks"]
            if c["counterexample"]
        )
        >= len(subs) - 1
    )


def test_a_replayed_failure_is_shrunk_by_hypothesis_from_the_same_first_example(
    store, sandbox, exercises, fast_config, monkeypatch, tmp_path
):
    """Replay finds the first failing example; hypothesis then reuses the answers to the
    examples before it (no worker call) and asks the worker only from the failure on."""
    ex = exercises["manual_gradient"]
    mutant = sorted((SOLUTIONS / "mutants" / "manual_gradient").glob("*.py"))[0]
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "manual_gradient.py").write_bytes(mutant.read_bytes())
    calls = []
    real = grading.Session.call

    def counted(self, check, kind, inputs):
        calls.append(check.id)
        return real(self, check, kind, inputs)

    monkeypatch.setattr(grading.Session, "call", counted)
    result = grade(submission_dir=sub, exercises=[ex], config=fast_config, sandbox=sandbox)
    failed = [c for c in result.exercises[0].checks if c.status == "failed"]
    assert failed and all(c.counterexample for c in failed)
    passed = [c for c in result.exercises[0].checks if c.status == "passed"]
    assert not any(c.id in calls for c in passed)  # passing checks: streamed, never call()ed


def test_examples_on_disk_keep_their_layout_and_references(store, exercises, fast_config):
    ex = exercises["custom_sigmoid"]
    check = next(c for c in ex.checks if not KINDS[c.kind].static)
    drawn = examples.examples(ex, check, KINDS[check.kind], 12, 7)
    drawn.memo[0]["want"] = torch.ones(3, 2, dtype=torch.float64).t()
    examples.save(drawn)
    assert len(list(store.iterdir())) == 1
    examples.forget()
    again = examples.examples(ex, check, KINDS[check.kind], 12, 7)
    assert again is not drawn and examples.same(again.inputs, drawn.inputs)
    assert examples.same(again.memo[0]["want"], drawn.memo[0]["want"])
    assert len(again.inputs) == len(drawn.inputs) > 1
    # a replayed example is a copy: a kind that changes its inputs leaves the store alone
    copy = again.example(0)
    first = next(v for v in copy.values() if isinstance(v, torch.Tensor))
    first.add_(1)
    assert examples.same(again.inputs, drawn.inputs)


def test_a_file_naming_another_class_is_not_read(store, exercises):
    ex = exercises["manual_gradient"]
    check = next(c for c in ex.checks if not KINDS[c.kind].static)
    k = examples.key(ex, check, 5, 1)
    store.mkdir(parents=True)

    class Hostile:
        def __reduce__(self):
            return (exec, ("raise SystemExit('ran code from the cache')",))

    (store / f"{k}.pickle").write_bytes(pickle.dumps({"key": k, "inputs": [Hostile()]}))
    drawn = examples.examples(ex, check, KINDS[check.kind], 5, 1)  # drawn again instead
    assert len(drawn.inputs) > 0 and all(isinstance(i, dict) for i in drawn.inputs)


def test_the_key_changes_with_code_spec_seed_and_count(exercises, monkeypatch):
    ex = exercises["manual_gradient"]
    check = next(c for c in ex.checks if not KINDS[c.kind].static)
    base = examples.key(ex, check, 10, 1)
    assert base != examples.key(ex, check, 11, 1) != examples.key(ex, check, 10, 2)
    assert base != examples.key(dataclasses.replace(ex, spec_hash="0" * 16), check, 10, 1)
    narrowed = dataclasses.replace(check, dtypes=check.dtypes[:1] + ("float16",))
    assert base != examples.key(ex, narrowed, 10, 1)  # changed in memory, same bytes on disk
    monkeypatch.setattr(speccache, "code_digest", lambda: "another grader or torch")
    assert base != examples.key(ex, check, 10, 1)


def test_batch_keeps_examples_in_memory_only(store, exercises, monkeypatch):
    monkeypatch.setattr(examples, "_disk", True)
    ex = exercises["manual_gradient"]
    check = next(c for c in ex.checks if not KINDS[c.kind].static)
    examples.memory_only()
    drawn = examples.examples(ex, check, KINDS[check.kind], 5, 3)
    drawn.memo[0]["x"] = 1
    examples.save(drawn)
    assert not store.exists()


@pytest.mark.parametrize(
    "a, b, same",
    [
        (torch.ones(2, 3), torch.ones(2, 3), True),
        (torch.ones(2, 3), torch.ones(3, 2).t(), False),  # the same values, another layout
        (torch.ones(2), torch.ones(2, dtype=torch.float64), False),
        (float("nan"), float("nan"), True),
        ({"x": (1.0, [torch.zeros(1)])}, {"x": (1.0, [torch.zeros(1)])}, True),
        ({"x": 1.0}, {"x": 2.0}, False),
    ],
)
def test_same(a, b, same):
    assert examples.same(a, b) is same


def _leaf(*shape, grad=False, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype).requires_grad_(grad)


_SHARED = torch.randn(4)
_VIEWED = torch.randn(3, 4)


@pytest.mark.parametrize(
    "value",
    [
        {"x": _leaf(3, grad=True), "w": _leaf(2, 2, dtype=torch.float64), "n": 3, "s": "a"},
        {"xs": [_leaf(2), (_leaf(1, grad=True), None)], "e": torch.zeros(0), "f": torch.zeros(0)},
        {"t": _VIEWED.t().requires_grad_()},  # a layout of its own
        {"a": _VIEWED[1], "b": _VIEWED[2]},  # views of one storage
        {"a": _SHARED, "b": _SHARED},  # one tensor twice
        {"a": _SHARED, "b": _SHARED.view(2, 2)},  # two on one whole storage
        {"p": torch.nn.Parameter(torch.ones(2))},  # a subclass
        {"z": torch.tensor(2.5, dtype=torch.float64), "b": torch.tensor([True, False])},
    ],
)
def test_copied_is_a_deepcopy(value):
    got, want = examples.copied(value), __import__("copy").deepcopy(value)
    assert examples.same(got, want) and examples.same(got, value)

    def tensors(v):
        if isinstance(v, torch.Tensor):
            return [v]
        items = v.values() if isinstance(v, dict) else v if isinstance(v, (list, tuple)) else []
        return [t for item in items for t in tensors(item)]

    for g, w, o in zip(tensors(got), tensors(want), tensors(value)):
        assert type(g) is type(w) and g.requires_grad == w.requires_grad and g.is_leaf
        assert g.stride() == w.stride() and g.storage_offset() == w.storage_offset()
        assert g.numel() == 0 or g.data_ptr() != o.data_ptr()  # never the store's own memory
    g, w = tensors(got), tensors(want)
    if len(g) >= 2:  # tensors that shared memory still do, as deepcopy keeps them

        def shared(a, b):
            return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()

        assert shared(g[0], g[1]) == shared(w[0], w[1])


def test_a_drawer_process_draws_from_the_last_check_back(store, exercises, fast_config):
    """A cold run's second process: it draws backwards and stops at what is on disk."""
    from grader.grading.grade import to_draw

    todo = to_draw(
        [exercises[i] for i in ("manual_gradient", "custom_sigmoid")], fast_config, False
    )
    assert len(todo) >= examples.Drawer.MIN_CHECKS
    first = examples.examples(*(todo[0][:3]), todo[0][3], todo[0][4])
    examples.save(first)  # this process's side: the drawer must stop there
    drawer = examples.Drawer.start(todo)
    assert drawer is not None
    _, status = __import__("os").waitpid(drawer.pid, 0)
    assert status == 0
    drawer.stop()  # harmless once it has ended
    # every check is on disk, but those the course's committed examples hold (a check with an
    # example count of its own has the same name with this config: grader.loader.committed)
    assert all(
        examples.on_disk(examples.key(e, c, n, s)) or committed.has(e, c, n, s)
        for e, c, _, n, s in todo
    )
    examples.forget()
    for e, c, kind, n, s in todo:  # what it drew is what hypothesis draws here
        assert examples.same(
            examples.examples(e, c, kind, n, s).inputs, examples.draw(e, c, kind, n, s)
        )
    assert examples.Drawer.start(todo) is None  # nothing left to draw

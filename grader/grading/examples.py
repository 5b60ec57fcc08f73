"""Each check's examples, drawn once and replayed against every submission.

With its fixed seed, hypothesis draws the same examples for every submission that passes them:
the sequence depends on the seed, the strategy, the example count and hypothesis's version,
never on the answer, until an example fails. So a check's examples are drawn once (by a
property that records them and always passes) and kept, with the reference values the kinds
compute for them (`Judging.remember`). Grading replays them against a submission
(grader.grading.checkrun.replayed, through Session.stream); a check whose replay meets a failure is handed to hypothesis as before, which
draws the same examples again, meets the same first failure and shrinks it: the verdict and the
counterexample are those hypothesis gives without replay.

Where they are kept: in memory for the life of the process (a class batch, `watch`), and for
single runs (`check`, `validate`) also on disk, in speccache.folder()/examples, one file per
check named by a hash of the grader's sources and versions (speccache), the spec's bytes, the
check, what it draws from, the seed and the example count: never trusted across versions, safe
to delete, sealed with the cache's key (speccache.secret: a file of another key or none is
drawn again) and read back by an unpickler that builds only tensors and a few data classes of
the grader's (grader.common.safepickle: data, never code). Where neither holds a check's
examples, the course's own may (exercises/<id>/examples.drawn, grader.loader.committed: written
by `python -m grader draw` for the public seed), before they are drawn. `batch` reads neither:
grades depend on nothing a worker process could have written. GRADER_REPLAY=off grades without
replay (each check in hypothesis alone, as before).
"""

from __future__ import annotations

import copy
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from hypothesis import given
from hypothesis import seed as hseed

from grader.common import safepickle
from grader.loader import committed, speccache
from grader.specs import strategies
from grader.specs.model import Check, Exercise

FORMAT = 1


@dataclass
class Drawn:
    """One check's examples in hypothesis's order, and what kinds remembered about each."""

    key: str
    inputs: list[dict]
    memo: list[dict] = field(default_factory=list)
    saved: int = -1
    """How many memo entries the disk copy holds (-1: none on disk)."""
    runs: Any = None
    """Hypothesis's runs of this check that failed, as a tree (grader.grading.shrinks.Step)."""
    steps: int = 0
    """How many steps that tree holds."""

    def __post_init__(self):
        if len(self.memo) != len(self.inputs):
            self.memo = [{} for _ in self.inputs]

    def example(self, i: int) -> dict:
        """A copy of example i: a kind may change the inputs it is given, never the store's."""
        return copied(self.inputs[i])

    def entries(self) -> int:
        return sum(len(m) for m in self.memo)


def copied(value):
    """copy.deepcopy(value), at a fraction of its cost for what examples hold: containers,
    numbers and plain leaf tensors without a .grad, in any layout (each storage copied once, so
    that tensors that shared one still do, and each tensor set on its copy with its own offset,
    shape and strides, as deepcopy does). Anything else (a subclass, a tensor with a .grad,
    conjugate or negative bits or attributes of its own, an object of any other type) is left to
    deepcopy, whole."""
    tensors: dict[int, torch.Tensor] = {}
    try:
        out = _copy(value, tensors, {}, 0)
    except _Odd:
        return copy.deepcopy(value)
    return out


class _Odd(Exception):
    """A value _copy leaves to deepcopy."""


def _copy(value, tensors: dict, storages: dict, depth: int):
    if value is None or type(value) in (bool, int, float, complex, str):
        return value
    if depth > 32:
        raise _Odd
    if type(value) is torch.Tensor:
        if id(value) in tensors:
            return tensors[id(value)]
        if (
            value.grad is not None
            or not value.is_leaf
            or value.layout is not torch.strided
            or value.device.type != "cpu"
            or value.is_conj()
            or value.is_neg()
            or value.__dict__
        ):
            raise _Odd
        storage = value.untyped_storage()
        ptr = storage.data_ptr()
        new = storages.get(ptr) if ptr else None  # (0: holds no bytes, shares nothing)
        if new is None:
            new = storage.clone()
            if ptr:
                storages[ptr] = new
        out = torch.empty(0, dtype=value.dtype)
        out.set_(new, value.storage_offset(), value.size(), value.stride())
        tensors[id(value)] = out.requires_grad_(value.requires_grad)
        return out
    if type(value) is dict:
        return {k: _copy(v, tensors, storages, depth + 1) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v, tensors, storages, depth + 1) for v in value]
    if type(value) is tuple:
        return tuple(_copy(v, tensors, storages, depth + 1) for v in value)
    raise _Odd


_MEMORY: dict[str, Drawn] = {}
_disk = True


def enabled() -> bool:
    return os.environ.get("GRADER_REPLAY", "").strip().lower() not in speccache.OFF


def memory_only() -> None:
    """Keep examples in this process only (batch: grades never read files a worker could have
    written, nor the course's committed examples: a class is graded with the grading seed)."""
    global _disk
    _disk = False
    committed.turned_off()


def key(exercise: Exercise, check: Check, examples: int, seed: int) -> str:
    """The examples' name: the grader and its versions, the spec's bytes, and what the check
    draws from (an exercise changed in memory, say with one check's dtypes narrowed, is
    another key even with the same bytes on disk)."""
    text = (
        f"{FORMAT}/{speccache.code_digest()}/{exercise.id}/{exercise.spec_hash}/"
        f"{exercise.plugin_digest}/"
        f"{check.id}/{committed.drawn_from(exercise, check)}/{examples}/{seed}"
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def draw(exercise: Exercise, check: Check, kind, examples: int, seed: int) -> list[dict]:
    """The examples hypothesis gives a property that passes every one, in its order: the
    check's edges first (strategies.explicit, the same under every seed), then those drawn."""
    drawn: list[dict] = []

    def record(inputs):
        drawn.append(inputs)

    test = with_edges(given(kind.strategy(exercise, check))(record), exercise, check, kind)
    test = strategies.profile(examples)(test)
    hseed(seed)(test)()
    return drawn


def with_edges(test, exercise: Exercise, check: Check, kind):
    """A @given test of the check with its edges run first (strategies.with_edges): a kind
    that draws with its own strategy completes each edge with it (a critic, a recipe)."""
    from grader.checks.base import Kind

    own = type(kind).strategy is not Kind.strategy
    strategy = kind.strategy(exercise, check) if own else None
    return strategies.with_edges(test, exercise, check, strategy, kind.starting_states)


def examples(exercise: Exercise, check: Check, kind, examples_count: int, seed: int) -> Drawn:
    """This check's examples: from memory, from disk, or drawn now (and kept)."""
    k = key(exercise, check, examples_count, seed)
    found = _MEMORY.get(k)
    if found is None:
        found = _load(k) or _committed(k, exercise, check, examples_count, seed)
        if found is None:
            found = Drawn(k, draw(exercise, check, kind, examples_count, seed))
        _MEMORY[k] = found
    return found


def first_run(todo: list) -> str | None:
    """What a run must do before it can replay todo's checks ((exercise, check, kind, count,
    seed) each): "draw" some, "read" the course's committed ones, or None (all kept already)."""
    how = None
    for e, c, _kind, count, seed in todo:
        k = key(e, c, count, seed)
        if k in _MEMORY or on_disk(k):
            continue
        if not committed.has(e, c, count, seed):
            return "draw"
        how = "read"
    return how


def on_disk(k: str) -> bool:
    path = _path(k)
    return path is not None and path.is_file()


def _committed(k: str, exercise: Exercise, check: Check, count: int, seed: int) -> Drawn | None:
    """The check's examples as the course carries them (grader.loader.committed), or None."""
    found = committed.entry(exercise, check, count, seed)
    if found is None or not isinstance(found.get("inputs"), list):
        return None
    drawn = Drawn(k, found["inputs"], [dict(m) for m in found.get("memo") or []])
    drawn.saved = drawn.entries()  # (the user's cache gets it only once the memo grows)
    return drawn


class Drawer:
    """A forked process that draws checks' examples to the disk store, from the last check to
    grade backwards, while this process grades from the first: a cold run uses a second core
    for drawing. It stops where it meets a check already on disk (drawn by this process) or
    when stopped; either side draws what the other has not."""

    MIN_CHECKS = 6
    """Fewer checks to draw than this are drawn here (a fork costs more than it saves)."""

    def __init__(self, pid: int):
        self.pid = pid

    @classmethod
    def start(cls, todo: list) -> Drawer | None:
        """todo: (exercise, check, kind, count, seed) in grading order. None where it does not
        pay or cannot be done (no fork, one core, no disk store, few checks to draw)."""
        if not _disk or speccache.folder() is None:
            return None
        keyed = [
            (key(e, c, count, seed), (e, c, kind, count, seed)) for e, c, kind, count, seed in todo
        ]
        keyed = [
            (k, t)
            for k, t in keyed
            if k not in _MEMORY and not on_disk(k) and not committed.has(*t[:2], *t[3:])
        ]
        if len(keyed) < cls.MIN_CHECKS or not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
            return None
        try:
            pid = os.fork()
        except OSError:
            return None
        if pid:
            return cls(pid)
        code = 0
        try:  # the child: draw backwards until the grading process's side is reached
            for k, (exercise, check, kind, count, seed) in reversed(keyed):
                if on_disk(k):
                    break
                save(Drawn(k, draw(exercise, check, kind, count, seed)))
        except BaseException:
            code = 1
        finally:
            os._exit(code)  # never the parent's atexit handlers or buffered output

    def stop(self) -> None:
        import signal

        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def held() -> list[Drawn]:
    """The checks' examples kept in memory."""
    return list(_MEMORY.values())


def forget() -> None:
    """Empty the in-memory store (tests)."""
    _MEMORY.clear()


def _path(k: str) -> Path | None:
    where = speccache.folder() if _disk else None
    return None if where is None else where / "examples" / f"{k}.pickle"


CORE_DATA = committed.CORE_DATA
allowed = committed.allowed


def _load(k: str) -> Drawn | None:
    path = _path(k)
    if path is None or not path.is_file():
        return None
    try:
        data = safepickle.load(path, allowed(), key=speccache.secret())
        if data.get("key") != k or not isinstance(data.get("inputs"), list):
            return None
        drawn = Drawn(k, data["inputs"], data.get("memo") or [])
    except Exception:  # unreadable, truncated, another format: draw again
        return None
    drawn.saved = drawn.entries()
    return drawn


def save(drawn: Drawn) -> None:
    """Write the examples and their memo to disk when the memo grew since (best effort: a
    value that cannot be kept is left out, a folder that cannot be written is left alone)."""
    path = _path(drawn.key)
    if path is None or drawn.entries() == drawn.saved:
        return
    value = {"key": drawn.key, "inputs": drawn.inputs, "memo": keepable_memo(drawn)}
    if safepickle.save(path, value, key=speccache.secret()):
        drawn.saved = drawn.entries()


def keepable_memo(drawn: Drawn) -> list[dict]:
    """The memo without the values a file cannot hold (read back, they are computed again)."""
    return [{k: v for k, v in m.items() if _keepable(v)} for m in drawn.memo]


def _keepable(value) -> bool:
    try:
        safepickle.loads(safepickle.dumps(value), allowed())
    except Exception:
        return False
    return True


def same(a, b) -> bool:
    """Whether two drawn examples are the same values in the same layout."""
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        return (
            a.dtype == b.dtype
            and a.shape == b.shape
            and a.stride() == b.stride()
            and a.storage_offset() == b.storage_offset()
            and torch.equal(a, b)
        )
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if hasattr(a, "__dataclass_fields__"):
        return all(same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    return a == b

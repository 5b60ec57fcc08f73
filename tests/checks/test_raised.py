"""Messages that name their own cause: the worker's memory limit only where the allocation
failed, never for an "out of memory" the code raised itself (an exercise's simulated model)."""

from __future__ import annotations

from grader.checks.messages import raised


def test_a_simulated_out_of_memory_is_not_the_worker_limit():
    simulated = (
        "out of memory (simulasi/simulated): model hanya menerima paling banyak 2 baris "
        "sekaligus, bukan 5 / the model takes at most 2 rows at a time, not 5"
    )
    text = raised({"type": "RuntimeError", "message": simulated}, "accumulate_grads", "call")
    assert "per-worker" not in text.en and "per worker" not in text.id
    assert "raised RuntimeError" in text.en and "at most 2 rows at a time" in text.en


def test_the_worker_limit_is_named_where_the_allocation_failed():
    for error in (
        {"type": "MemoryError", "message": ""},
        {"type": "RuntimeError", "message": "DefaultCPUAllocator: can't allocate memory: 8 GB"},
    ):
        text = raised(error, "f", "call")
        assert "the per-worker limit" in text.en and "batas per worker" in text.id

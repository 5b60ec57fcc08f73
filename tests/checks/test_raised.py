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


def test_memory_exhaustion_names_the_size_the_process_reached():
    text = raised({"type": "MemoryError", "message": "", "peak_bytes": 729 * 2**20}, "f", "call")
    assert "ran out of memory" in text.en and "729 MiB" in text.en and "729 MiB" in text.id
    assert "exit" not in text.en


def test_an_in_place_change_of_a_leaf_gets_a_hint_torchs_message_lacks():
    from grader.checks.messages import raised_hint

    message = "a leaf Variable that requires grad is being used in an in-place operation."
    hint = raised_hint({"type": "RuntimeError", "message": message})
    assert hint is not None and "torch.no_grad()" in hint.en and "torch.no_grad()" in hint.id
    assert raised_hint({"type": "RuntimeError", "message": "shapes differ"}) is None

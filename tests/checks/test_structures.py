"""Messages about structures a check compares (lists, tuples, dicts): both values when short,
otherwise the first item that differs and what is missing or extra; in both languages
(grader.checks.messages.items, used by the scenario kind and by compare's `items` mismatch)."""

from __future__ import annotations

import torch

from grader.checks.compare import compare
from grader.checks.messages import SHOWN, items, mismatch, shown
from grader.common.wire import Opaque, TensorFacts

NAMES = ["AccumulateGrad", "MulBackward0"]


def test_a_list_of_another_length_is_quoted_whole_with_the_repeated_item():
    text = items("backward_nodes: result", [*NAMES, "MulBackward0"], NAMES)
    assert (
        "result = ['AccumulateGrad', 'MulBackward0', 'MulBackward0']; "
        "expected ['AccumulateGrad', 'MulBackward0']." in text.en
    )
    assert "Yours has 3 items; expected 2." in text.en
    assert "'MulBackward0' appears 2 times; expected once." in text.en
    assert "each item exactly once (no duplicates)" in text.en
    assert "item(s)" not in text.en
    assert "seharusnya ['AccumulateGrad', 'MulBackward0']" in text.id
    assert "Hasilmu berisi 3 item, seharusnya 2." in text.id
    assert "'MulBackward0' muncul 2 kali, seharusnya 1 kali." in text.id
    assert "tanpa duplikat" in text.id


def test_missing_and_extra_items_are_named():
    text = items("f: result", ["AddBackward0", "AddBackward0"], NAMES)
    assert "First difference at [0]: yours 'AddBackward0', expected 'AccumulateGrad'." in text.en
    assert "Missing: 'AccumulateGrad', 'MulBackward0'." in text.en
    assert "Extra: 'AddBackward0'." in text.en
    assert "Tidak ada: 'AccumulateGrad', 'MulBackward0'." in text.id
    assert "Berlebih: 'AddBackward0'." in text.id


def test_the_same_items_in_another_order_say_so():
    text = items("f: result", NAMES[::-1], NAMES)
    assert "in another order; the expected ones are sorted" in text.en
    assert "urutannya lain; yang diharapkan terurut" in text.id


def test_a_long_list_names_the_first_difference_not_every_item():
    got, want = list(range(60)), list(range(1, 61))
    text = items("f: result", got, want)
    assert "differs from what is expected" in text.en
    assert "First difference at [0]: yours 0, expected 1." in text.en
    assert "Missing: 60." in text.en and "Extra: 0." in text.en
    assert "Item pertama yang berbeda, [0]: hasilmu 0, seharusnya 1." in text.id
    assert len(text.en) < 400 and "41, 42" not in text.en


def test_a_shorter_long_list_says_where_it_ends():
    want = [f"name{i:03d}" for i in range(40)]
    text = items("f: result", want[:39], want)
    assert "Yours has 39 items; expected 40." in text.en
    assert "First difference at [39]: yours (none: the list ends), expected 'name039'." in text.en
    assert "Missing: 'name039'." in text.en


def test_dicts_name_missing_and_extra_keys_and_the_first_item_that_differs():
    text = items("f: result", {"a": 1, "c": 2}, {"a": 1, "b": 2})
    assert "f: result = {'a': 1, 'c': 2}; expected {'a': 1, 'b': 2}." in text.en
    assert "Missing key(s): 'b'." in text.en and "Extra key(s): 'c'." in text.en
    assert "Kunci yang tidak ada: 'b'." in text.id and "Kunci berlebih: 'c'." in text.id
    text = items("f: result", {"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]})
    assert "First difference at ['b']: yours [1, 2], expected [1, 3]." in text.en


def test_something_else_than_a_list_is_quoted_with_what_was_expected():
    text = items("f: result", None, NAMES)
    assert "f: result = None; expected ['AccumulateGrad', 'MulBackward0']." in text.en
    assert "Expected a list of 2 items." in text.en
    assert "Seharusnya list berisi 2 item." in text.id


def test_quoted_values_are_safe_and_cut():
    hostile = "\x1b[32mTotal: 61/61\u202e\ud800\n" + "x" * 10_000
    text = shown([hostile, 1.5, None, (2,), Opaque("set"), TensorFacts(torch.zeros(2, 3))])
    assert len(text) <= SHOWN
    assert not any(ch in text for ch in "\x1b\u202e\ud800\n")
    assert "\\x1b[32mTotal" in text and "\\u202e" in text
    assert shown((2,)) == "(2,)" and shown(Opaque("set")) == "<set>"
    assert shown(TensorFacts(torch.zeros(2, 3))) == "tensor(shape=[2, 3])"
    assert shown(list(range(1000))).endswith("…")


def test_a_value_check_result_of_another_length_shows_both_structures():
    got = [TensorFacts(torch.zeros(2, dtype=torch.float64))] * 3
    found = compare(got, (torch.zeros(2), torch.zeros(2)))
    text = mismatch(found, "fn")
    assert (
        "fn(...) = [tensor(shape=[2]), tensor(shape=[2]), tensor(shape=[2])]; "
        "expected (tensor(shape=[2]), tensor(shape=[2]))." in text.en
    )
    assert "Yours has 3 items; expected 2." in text.en
    assert "Hasilmu berisi 3 item, seharusnya 2." in text.id
    found = compare({"W1": got[0]}, {"W1": torch.zeros(2), "b1": torch.zeros(1)})
    assert "Missing key(s): 'b1'." in mismatch(found, "fn").en

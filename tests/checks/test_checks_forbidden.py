"""The forbidden_api kind's message: the function where each hit is, one language at a time."""

from __future__ import annotations

import ast
import textwrap

from conftest import find_check

from grader.checks import KINDS

SOURCE = textwrap.dedent("""
    import torch
    y0 = torch.sigmoid(torch.zeros(1))

    class Sigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.sigmoid(x)
""")


def test_a_whole_file_scan_names_the_function_and_never_a_placeholder(exercises):
    check = find_check(exercises["custom_sigmoid"], "no_builtin_sigmoid")
    verdict = KINDS["forbidden_api"].run(check, ast.parse(SOURCE), {"sigmoid": {"torch.sigmoid"}})
    en, id_ = verdict.message.en, verdict.message.id
    assert "torch.sigmoid (line 8, Sigmoid.forward)" in en
    assert "torch.sigmoid (line 3, module level)" in en
    assert "torch.sigmoid (sigmoid, at run time)" in en
    assert "(baris 8, Sigmoid.forward)" in id_ and "saat dijalankan" in id_
    for text in (en, id_):
        assert "<file>" not in text and "baris/line" not in text and "*" not in text
    assert "runtime" not in en and "line" not in id_


def test_a_call_the_scan_named_is_not_listed_again_from_the_trap(exercises):
    """The trap reports the call the scan already named (same API, same line) once: the scan's
    entry says it; a run-time hit on another line (a name the scan cannot see) stays."""
    check = find_check(exercises["custom_sigmoid"], "no_builtin_sigmoid")
    same = "torch.sigmoid | name | torch.sigmoid | 8 | return torch.sigmoid(x)"
    other = "torch.sigmoid | name | sig | 12 | return sig(x)"
    verdict = KINDS["forbidden_api"].run(check, ast.parse(SOURCE), {"sigmoid": {same, other}})
    en = verdict.message.en
    assert en.count("torch.sigmoid") == 3, en  # line 3, line 8, and the run-time hit on line 12
    assert "line 12" in en and "at run time" in en

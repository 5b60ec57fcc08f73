"""Answer-free feedback: the answer key's expressions, found in a message as a message writes
them, and left alone where the exercise hands them out itself."""

from __future__ import annotations

from types import SimpleNamespace

from grader.authoring import answerfree
from grader.outcomes.results import CheckResult, ExerciseResult
from grader.specs.model import Text

KEY = '''
"""Answer key."""
import torch


def backward(ctx, grad_output):
    (y,) = ctx.saved_tensors
    print(f"shape {y.shape[0] + 1}")
    return grad_output * y * (1 - y)


def log_softmax(x):
    shifted = x - x.max(dim=-1, keepdim=True).values
    return shifted - torch.log(torch.exp(shifted).sum(dim=-1, keepdim=True))


def total(x):
    return x.sum()
'''


def sources(code=KEY):
    return {k.source for k in answerfree.expressions(code)}


def test_the_keys_expressions_of_some_size_are_looked_for():
    found = sources()
    assert "grad_output * y * (1 - y)" in found
    assert "x - x.max(dim=-1, keepdim=True).values" in found
    assert "x.sum()" not in found  # one operation: a name, not an answer
    assert "1 - y" not in found  # too short to be one
    assert not any("shape" in s for s in found)  # what the key prints is no formula


def test_a_message_that_writes_the_formula_its_own_way_is_found():
    keys = answerfree.expressions(KEY)
    assert answerfree.found("Kalikan: grad_output·y·(1 − y).", keys) == [
        "grad_output * y * (1 - y)"
    ]
    assert answerfree.found("use `torch.exp(shifted).sum(dim=-1, keepdim=True)`", keys)
    # a call written with its arguments elided is the same expression
    assert answerfree.found("subtract x - x.max(...).values first", keys)


def test_a_message_that_names_what_is_wrong_is_not_found():
    keys = answerfree.expressions(KEY)
    for text in (
        "backward ignores grad_output (the chain rule).",
        "log_softmax(...): non-finite value at result[0]: yours nan, torch -0.69.",
        "grad_output * yy * (1 - y) is another name's",  # not inside a longer name
        "x.sum() is fine",
    ):
        assert answerfree.found(text, keys) == [], text


def exercise(tmp_path, instructions="", starter=""):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "ex.py").write_text(KEY)
    (tmp_path / "ex").mkdir()
    (tmp_path / "ex" / "ex.py").write_text(starter)
    return SimpleNamespace(
        file="ex.py",
        instructions=Text(id=instructions, en=instructions),
        path=tmp_path / "ex" / "exercise.yaml",
    )


def test_what_the_exercise_hands_out_is_no_answer(tmp_path):
    ex = exercise(
        tmp_path,
        instructions="backward returns grad_output · y · (1 - y).",
        starter="def log_softmax(x):\n    shifted = x - x.max(dim=-1, keepdim=True).values\n",
    )
    found = {k.source for k in answerfree.answer_key(ex, tmp_path / "solutions")}
    assert "grad_output * y * (1 - y)" not in found
    assert "x - x.max(dim=-1, keepdim=True).values" not in found
    assert "shifted - torch.log(torch.exp(shifted).sum(dim=-1, keepdim=True))" in found
    assert answerfree.answer_key(ex, tmp_path / "nowhere") == []


def test_leaks_read_messages_and_shown_hints_not_kept_back_ones():
    keys = answerfree.expressions(KEY)
    formula = Text(id="pakai grad_output·y·(1 - y)", en="use grad_output·y·(1 - y)")

    def row(**kw):
        return CheckResult(
            id="c",
            title=Text("t", "t"),
            kind="value",
            status="failed",
            points=0,
            max_points=1,
            **kw,
        )

    def result(*checks):
        return ExerciseResult(id="e", title=Text("t", "t"), status="failed", checks=list(checks))

    assert [x.where for x in answerfree.leaks(result(row(message=formula)), keys)] == [
        "c: message (id)",
        "c: message (en)",
    ]
    assert len(answerfree.leaks(result(row(hint=formula)), keys)) == 2
    clean = row(message=Text("salah", "wrong"), held_hint=formula)
    assert answerfree.leaks(result(clean), keys) == []


def test_the_students_own_code_quoted_is_no_answer():
    keys = answerfree.expressions(KEY)
    quoted = Text(
        id="backward memanggil ... (baris 3: `return grad_output * y * (1 - y)`)",
        en="backward called ... (line 3: `return grad_output * y * (1 - y)`)",
    )
    result = ExerciseResult(
        id="e",
        title=Text("t", "t"),
        status="failed",
        checks=[
            CheckResult(
                id="c",
                title=Text("t", "t"),
                kind="value",
                status="failed",
                points=0,
                max_points=1,
                message=quoted,
            )
        ],
    )
    assert len(answerfree.leaks(result, keys)) == 2
    own = "def backward(ctx, grad_output):\n    return grad_output * y * (1 - y)\n"
    assert answerfree.leaks(result, keys, own=own) == []


def test_validate_fails_a_wrong_answers_report_that_shows_the_key_below_recipe():
    from grader.authoring.validate import Audit, Trial

    keys = answerfree.expressions(KEY)
    leaky = Text(id="pakai grad_output·y·(1 - y)", en="use grad_output·y·(1 - y)")

    def trial(role, message):
        row = CheckResult(
            id="c",
            title=Text("t", "t"),
            kind="value",
            status="failed",
            points=0,
            max_points=1,
            message=message,
        )
        result = ExerciseResult(id="e", title=Text("t", "t"), status="failed", checks=[row])
        return Trial(role, f"solutions/mutants/e/{role}.py", result)

    exercise = SimpleNamespace(id="e", checks=(), rules={})
    audit = Audit(exercise, [trial("mutant", leaky), trial("key", leaky)], keys=keys)
    problems = audit.answer_leaks()  # the key's own report is not a wrong answer's
    assert len(problems) == 2  # the message in each language
    for lang, problem in zip(("id", "en"), problems):
        assert problem.startswith(f"solutions/mutants/e/mutant.py: c: message ({lang}) shows")
        assert "`grad_output * y * (1 - y)`" in problem and "into the check's `hint:`" in problem
    audit.sources["solutions/mutants/e/mutant.py"] = "return grad_output * y * (1 - y)\n"
    assert audit.answer_leaks() == []  # the student's own code, quoted
    audit.sources.clear()
    audit.level = "recipe"
    assert audit.answer_leaks() == []

"""The rules a student is told are the rules that are graded: every forbidden API, by its full
path, in the starter the student edits (and so in its notebook), and in the report."""

from __future__ import annotations

import ast

from conftest import EXERCISES

from grader.checks.forbidden import ForbiddenApi


def test_every_forbidden_api_is_named_in_the_starter(exercises):
    """A forbidden_api check costs a point only for an API the starter's module docstring names
    (the full path, as the check lists it), with the functions it covers."""
    missing = []
    for exercise in exercises.values():
        starter = (EXERCISES / exercise.id / exercise.file).read_text(encoding="utf-8")
        text = ast.get_docstring(ast.parse(starter)) or ""
        for check in exercise.checks:
            if check.kind != "forbidden_api":
                continue
            functions = list(check.options["functions"])
            where = "anywhere in this file" if "*" in functions else ", ".join(functions)
            for name in [*check.options["apis"], where]:
                if name not in text:
                    missing.append(f"{exercise.id}/{check.id}: {name}")
    assert missing == [], "not stated in the starter's docstring: " + "; ".join(missing)


def test_the_report_names_the_api_and_the_rule(exercises):
    """The failed check's message names what was used, where, and the spec's reason."""
    exercise = exercises["manual_sgd"]
    check = next(c for c in exercise.checks if c.kind == "forbidden_api")
    tree = ast.parse(
        "import torch\ndef sgd_step(params, lr):\n    torch.optim.SGD(params, lr).step()\n"
    )
    verdict = ForbiddenApi().run(check, tree, {})
    assert verdict is not None and verdict.status == "failed"
    assert "torch.optim.SGD (line 3, sgd_step)" in verdict.message.en
    assert check.options["reason"]["en"] in verdict.message.en
    allowed = ast.parse(
        "import torch\ndef sgd_step(params, lr):\n"
        "    torch._foreach_add_(params, [p.grad for p in params], alpha=-lr)\n"
    )
    assert ForbiddenApi().run(check, allowed, {}) is None  # no unstated private ban


def test_every_stated_rule_is_in_the_starter_and_its_notebook(exercises):
    """Every rule of every spec (id and en texts) is in the starter's module docstring, and so
    in the notebook made from it: what can cost a point is what the student was told."""
    import json

    from grader.authoring import stating

    missing = {e.id: stating.unstated(e) for e in exercises.values() if stating.unstated(e)}
    assert missing == {}, f"run `{stating.COMMAND} ID` for: {missing}"
    for exercise in exercises.values():
        cells = json.loads((EXERCISES.parent / "notebooks" / f"{exercise.id}.ipynb").read_text())
        text = " ".join("".join(c["source"]) for c in cells["cells"]).split()
        flat = " ".join(text)
        for rule in exercise.rules.values():
            assert " ".join(rule.en.split()) in flat, (exercise.id, rule.en)

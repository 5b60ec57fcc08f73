"""Exercise specs: the shipped ones load; broken ones are reported by file, line and key."""

from __future__ import annotations

import pytest
from conftest import EXERCISES, ROOT

from grader.common.errors import SpecError
from grader.loader import specfile

GOOD = (EXERCISES / "manual_gradient" / "exercise.yaml").read_text()


def load_text(tmp_path, text, name="manual_gradient"):
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    path = folder / "exercise.yaml"
    path.write_text(text)
    return specfile.load(path, root=tmp_path)


def test_every_shipped_spec_loads():
    loaded = specfile.discover(EXERCISES, root=ROOT)
    assert [e.id for e in loaded] == (EXERCISES / "ORDER").read_text().split()
    for ex in loaded:
        assert ex.title.id and ex.title.en and ex.instructions.id and ex.instructions.en
        assert ex.max_points > 0 and ex.hints
        assert (EXERCISES / ex.id / ex.file).exists(), f"{ex.id} has no starter"


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize(
    "old, new, key, message",
    [
        (
            "    points: 3\n",
            "    points: tight\n",
            "checks[0].points",
            "expected a number, got 'tight'",
        ),
        ("    kind: value\n", "    kind: valu\n", "checks[0].kind", "unknown check kind 'valu'"),
        (
            "expect: {grad_of: f, wrt: x}",
            "expect: {grad_of: h, wrt: x}",
            "checks[0].expect.grad_of",
            "unknown reference 'h'",
        ),
        ("format: 1", "format: 2", "format", "this grader reads format 1"),
        (
            "x: {shape: any, low: -4, high: 4}",
            "x: {shape: [Q], low: -4, high: 4}",
            "checks[0].args.x.shape[0]",
            "'Q' is neither a size nor a dimension",
        ),
        (
            "    expr: x * y**2 + torch.tanh(x * y)",
            "    expr: x * y**2 +",
            "references.g.expr",
            "not a Python expression",
        ),
    ],
)
def test_errors_name_file_line_and_key(tmp_path, old, new, key, message):
    assert old in GOOD
    text = GOOD.replace(old, new, 1)
    with pytest.raises(SpecError) as err:
        load_text(tmp_path, text)
    assert err.value.file == "manual_gradient/exercise.yaml"
    assert err.value.key == key
    assert message in err.value.message
    assert err.value.line == line_of(text, new.strip())


def test_id_must_match_folder(tmp_path):
    with pytest.raises(SpecError, match="must match its folder name 'other'"):
        load_text(tmp_path, GOOD, name="other")


def test_duplicate_check_ids(tmp_path):
    text = GOOD.replace("id: df_shape_dtype", "id: df_value")
    with pytest.raises(SpecError, match="duplicate check id 'df_value'"):
        load_text(tmp_path, text)


def test_single_language_text_is_refused(tmp_path):
    text = GOOD.replace(
        'title: {id: "df(x) sama dengan autograd", en: "df(x) matches autograd"}',
        'title: "df(x) matches autograd"',
    )
    with pytest.raises(SpecError, match="give the text in both languages"):
        load_text(tmp_path, text)


SGD = (EXERCISES / "manual_sgd" / "exercise.yaml").read_text()


def test_rules_load_with_the_checks_that_observe_them(tmp_path):
    ex = load_text(tmp_path, SGD, name="manual_sgd")
    assert "no_optim" in ex.rules and ex.rules["no_optim"].en
    observers = [c.id for c in ex.checks if "no_optim" in c.rules]
    assert observers == ["no_optim"]


def test_a_rule_no_check_observes_is_a_spec_error(tmp_path):
    text = SGD.replace("    rules: [no_optim]\n", "", 1)
    with pytest.raises(SpecError) as err:
        load_text(tmp_path, text, name="manual_sgd")
    assert "no check observes the rule 'no_optim'" in err.value.message
    assert err.value.line == line_of(text, "  no_optim:")


def test_a_check_naming_an_unknown_rule_is_a_spec_error(tmp_path):
    text = SGD.replace("    rules: [no_optim]\n", "    rules: [no_optim, no_optimm]\n", 1)
    with pytest.raises(SpecError, match="unknown rule 'no_optimm'"):
        load_text(tmp_path, text, name="manual_sgd")


def test_may_change_takes_a_list_of_names(tmp_path):
    text = SGD.replace(
        "    rules: [no_optim]\n", "    rules: [no_optim]\n    may_change: [1]\n", 1
    )
    with pytest.raises(SpecError, match="expected a name"):
        load_text(tmp_path, text, name="manual_sgd")
    text = SGD.replace(
        "    rules: [no_optim]\n", "    rules: [no_optim]\n    may_change: [params]\n"
    )
    ex = load_text(tmp_path, text, name="manual_sgd")
    assert next(c for c in ex.checks if c.id == "no_optim").may_change == ("params",)


def test_an_exercise_sets_its_own_feedback_keys(tmp_path):
    assert load_text(tmp_path, GOOD).feedback == {}
    text = GOOD.replace("dtype: float64\n", "dtype: float64\nfeedback: {hints_after: 1}\n", 1)
    assert load_text(tmp_path, text).feedback == {"hints_after": 1}
    bad = GOOD.replace("dtype: float64\n", "dtype: float64\nfeedback: everything\n", 1)
    with pytest.raises(SpecError, match=r"exercise.yaml, line \d+, feedback: expected one of"):
        load_text(tmp_path, bad)


HINT = """      en: "Differentiate each term with the product and chain rules; 1/(1 + e^(-x)) is the sigmoid."
"""


def test_a_check_hint_declares_the_premise_it_is_for(tmp_path):
    from grader.specs.model import CheckHint

    text = GOOD.replace(
        HINT, HINT + '      when: {source_lacks: "sigmoid", causes: ["raised:"]}\n', 1
    )
    assert text != GOOD
    hint = load_text(tmp_path, text).checks[0].hint
    assert isinstance(hint, CheckHint) and hint.source_lacks == "sigmoid"
    assert hint.holds("y = 1 / (1 + exp(-x))", "raised:ValueError:df", None)
    assert not hint.holds("y = torch.sigmoid(x)", "raised:ValueError:df", None)
    assert not hint.holds("y = 1 / (1 + exp(-x))", None, None)  # not the cause it is for
    assert type(load_text(tmp_path, GOOD).checks[0].hint).__name__ == "Text"  # no premise
    for bad, message in (
        ('      when: {source_lacks: "("}\n', "not a regular expression"),
        ('      when: {sometimes: "x"}\n', "sometimes"),
    ):
        with pytest.raises(SpecError, match=message):
            load_text(tmp_path, GOOD.replace(HINT, HINT + bad, 1))


def test_the_premise_reads_code_not_docstrings_or_comments():
    import ast

    from grader.grading.grade import _code

    source = (
        '"""Over dim=-1."""\n\ndef f(x):\n    """dim=-1"""\n    # dim=-1\n    return x.sum(0)\n'
    )
    assert "dim" not in _code(ast.parse(source))
    assert "dim=-1" in _code(ast.parse("def f(x):\n    return x.sum(dim = -1)\n"))


def test_the_premise_reads_the_checks_own_function_where_the_file_defines_it():
    """nan_debugging's starter sums over dim=-1 in safe_norm: a log_softmax that sums the
    whole tensor still lacks it, in its own code."""
    import ast

    from grader.grading.grade import _code

    tree = ast.parse(
        "def log_softmax(x):\n    return x - x.exp().sum().log()\n\n"
        "def safe_norm(v):\n    return (v * v).sum(dim=-1).sqrt()\n"
    )
    assert "dim" not in _code(tree, "log_softmax") and "dim=-1" in _code(tree, "safe_norm")
    assert "dim=-1" in _code(tree, "Missing.method")  # not defined: the whole file

"""Lines of solutions/ in a folder: what counts as a line, and that a planted one is found."""

from grader.release import leaks

KEY = '''"""Answer key: the docstring says nothing."""

import torch


def df(x):
    # a comment is not an answer
    e = torch.exp(-x**2)
    return e * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))


def g(x):
    return x
'''


def test_telling_lines_skip_docstrings_comments_structure_and_short_lines(tmp_path):
    (tmp_path / "key.py").write_text(KEY)
    assert leaks.telling_lines(tmp_path / "key.py") == [
        "e = torch.exp(-x**2)",
        "return e * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))",
    ]


def test_a_planted_line_is_found_and_given_lines_are_not(tmp_path):
    solutions = tmp_path / "solutions"
    (solutions / "mutants" / "ex").mkdir(parents=True)
    (solutions / "mutants" / "ex" / "m.py").write_text(KEY)
    answers = leaks.answers(solutions, given={"e = torch.exp(-x**2)"})
    assert list(answers) == ["return e * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))"]
    out = tmp_path / "release"
    (out / "docs").mkdir(parents=True)
    (out / "docs" / "notes.md").write_text(
        "# Notes\n\n        return e * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))\n"
    )
    (out / "ok.py").write_text("e = torch.exp(-x**2)\n")
    [leak] = leaks.scan(out, answers)
    assert (leak.file.name, leak.line, leak.source.name) == ("notes.md", 3, "m.py")

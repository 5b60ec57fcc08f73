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
    answers = leaks.answers(solutions, given=leaks.fingerprints(["e = torch.exp(-x**2)"]))
    assert list(answers) == ["returne*(3*torch.cos(3*x)-2*x*torch.sin(3*x))"]
    out = tmp_path / "release"
    (out / "docs").mkdir(parents=True)
    (out / "docs" / "notes.md").write_text(
        "# Notes\n\n        return e * (3 * torch.cos(3 * x) - 2 * x * torch.sin(3 * x))\n"
    )
    (out / "ok.py").write_text("e = torch.exp(-x**2)\n")
    [leak] = leaks.scan(out, answers)
    assert (leak.file.name, leak.line, leak.source.name) == ("notes.md", 3, "m.py")


def test_a_line_is_the_same_line_with_other_spacing_or_another_comment():
    line = "return e * (3 * torch.cos(3 * x))  # the chain rule"
    assert leaks.fingerprint(line) == "returne*(3*torch.cos(3*x))"
    assert leaks.fingerprint("return e*(3*torch.cos(3*x))") == leaks.fingerprint(line)
    assert leaks.fingerprint('s = "a # b"  # c') == 's="a#b"'
    assert leaks.fingerprint("y = f(a,  # unclosed") == "y=f(a,#unclosed"


def test_units_are_bounded_and_a_bad_file_is_no_error(tmp_path):
    """A zip bomb, a deep JSON document and a file that is not text: read within the bounds,
    and what cannot be read is skipped, never an error."""
    import gzip
    import json

    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"\0" * (leaks.MAX_UNPACKED * 2)))
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps({"a": 1}).replace("1", "[" * 100_000 + "]" * 100_000))
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 100)
    for path in (bomb, deep, junk):
        read = sum(len(u.text) for u in leaks.units(path))
        assert read <= leaks.MAX_UNPACKED + 2 * path.stat().st_size

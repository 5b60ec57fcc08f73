"""The class summary: distribution and per-check pass rates (grader.classstats), as Markdown."""

from classdata import klass

from grader import classstats
from grader.report import markdown


def test_stats_rank_checks_by_pass_rate_and_bin_scores():
    stats = classstats.compute(klass())
    assert [(c.check, c.passed, c.total) for c in stats.checks] == [
        ("a", 1, 4), ("b", 2, 4), ("h", 3, 4)]
    assert stats.checks[1].statuses["error"] == 1
    assert stats.scores == [4, 2, 0, 1] and stats.full_marks == 1
    bins = {(low, high): n for low, high, n in stats.distribution}
    assert bins[(100.0, 100.0)] == 1 and bins[(50.0, 60.0)] == 1
    assert bins[(0.0, 10.0)] == 1 and bins[(20.0, 30.0)] == 1
    assert sum(bins.values()) == 4
    assert stats.mean == 1.75 and stats.median == 1.5
    assert stats.exercises[0].statuses == {"passed": 1, "failed": 3}


def test_markdown_lists_the_missed_check_first_and_escapes_tables():
    text = markdown.text(classstats.compute(klass()), "en")
    rows = [line for line in text.splitlines() if line.startswith("| `ex.")]
    assert [r.split("`")[1] for r in rows] == ["ex.a", "ex.b", "ex.h"]
    assert "| 1/4 | 25% |" in rows[0]
    assert "_(hidden)_" in rows[2]
    assert "Exercise \\| one" in text
    assert "4 submissions" in text


def test_markdown_in_indonesian_and_for_an_empty_class():
    assert "kiriman" in markdown.text(classstats.compute(klass()), "id")
    assert "No submissions." in markdown.text(classstats.compute([]), "en")

"""The class summary: distribution and per-check pass rates (grader.outcomes.classstats), as Markdown."""

from classdata import klass

from grader.outcomes import classstats
from grader.report import markdown


def test_stats_rank_checks_by_pass_rate_and_bin_scores():
    stats = classstats.compute(klass())
    assert [(c.check, c.passed, c.total) for c in stats.checks] == [
        ("a", 1, 4),
        ("b", 2, 4),
        ("h", 3, 4),
    ]
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


def test_pass_rates_count_attempts_and_the_others_apart():
    from grader.batch.files import EMPTY, Manifest

    results = klass()
    manifest = Manifest(
        language="en",
        exercises=["ex"],
        starters={"ex": "starter"},
        files={
            "ana": {"ex": "1"},
            "budi": {"ex": "starter"},
            "citra": {"ex": EMPTY},
            "dewi": {"ex": "2"},
        },
    )
    stats = classstats.compute(results, attempt=manifest.attempt)
    ex = stats.exercises[0]
    assert ex.attempted == 2 and ex.not_attempted == {"untouched": 2}
    assert ex.statuses == {"passed": 1, "failed": 1} and ex.mean == 2.5
    assert [(c.check, c.passed, c.total) for c in stats.checks] == [
        ("a", 1, 2),
        ("b", 1, 2),
        ("h", 2, 2),
    ]
    assert stats.submissions == 4  # the distribution still covers everyone
    text = markdown.text(stats, "id")
    assert "| 2/4 | 2.5/4 | gagal 1, lulus 1 | starter tak diubah atau kosong 2 |" in text
    for english in ("passed", "failed", "untouched", "Attempted"):
        assert english not in text


def test_a_check_nobody_attempted_has_no_rate_and_comes_last():
    from grader.batch.files import Manifest

    manifest = Manifest(
        language="en", exercises=["ex"], files={r.submission: {"ex": None} for r in klass()}
    )
    stats = classstats.compute(klass(), attempt=manifest.attempt)
    assert stats.exercises[0].not_attempted == {"missing": 4}
    assert "| 0/0 | – |" in markdown.text(stats, "en")

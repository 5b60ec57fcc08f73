"""Feedback per student: every visible miss with its message, input and hint; hidden checks by
title and status only, whatever the result holds; wholly in the course's language."""

from dataclasses import replace

from classdata import klass, submission

from grader.outcomes.results import ExerciseResult
from grader.report import feedback
from grader.specs.model import Text


def test_a_failed_visible_check_carries_message_input_and_hint():
    text = feedback.text(submission("budi", {"a": "failed"}), "en")
    assert "**Score: 2/4**" in text
    assert "### ✘ title of a: 0/2 points (failed)" in text
    assert "a is wrong: got 1 \\<want\\> 2 & \x01" in text  # shown as written, not as HTML
    assert "```\nx = tensor([4.5])\n```" in text
    assert "**Hint:** hint for a" in text
    assert "title of b" not in text  # passed visible checks are counted, not listed
    assert "1 of 2 visible checks passed." in text


def test_hidden_checks_show_title_and_status_only_even_if_the_result_held_more():
    r = submission("citra", {"h": "failed"})
    row = r.exercises[0].checks[2]
    assert row.hidden and row.counterexample
    r.exercises[0].checks[2] = replace(
        row, traceback=["SECRET-TB"], hint=Text("SECRET-HINT", "SECRET-HINT")
    )
    text = feedback.text(r, "en")
    assert "- ✘ title of h: failed" in text
    for secret in (row.counterexample, row.message.en, "SECRET-TB", "SECRET-HINT"):
        assert secret not in text


def test_whole_exercise_reason_is_given_once_and_in_indonesian():
    r = submission("dewi", {})
    ex = r.exercises[0]
    checks = [replace(c, status="skipped", points=0.0, message=None) for c in ex.checks]
    r.exercises[0] = ExerciseResult(
        id=ex.id,
        title=ex.title,
        status="missing",
        checks=checks,
        message=Text("File ex.py tidak ditemukan", "File ex.py not found"),
    )
    text = feedback.text(r, "id")
    assert text.count("File ex.py tidak ditemukan") == 1 and "not found" not in text
    assert "| ? tidak ada |" in text and "belum dinilai" in text
    assert "Umpan balik: dewi" in text and "Pemeriksaan tersembunyi" in text


def test_a_counterexample_with_backticks_cannot_close_its_block():
    r = submission("eko", {"a": "failed"})
    r.exercises[0].checks[0] = replace(r.exercises[0].checks[0], counterexample="s = '```'")
    text = feedback.text(r, "en")
    assert "````\ns = '```'\n````" in text


def test_one_file_per_submission_and_no_stale_file(tmp_path):
    (tmp_path / "feedback").mkdir()
    (tmp_path / "feedback" / "gone.md").write_text("old")
    feedback.write(tmp_path, klass(), "en")
    assert sorted(p.name for p in (tmp_path / "feedback").iterdir()) == [
        "ana.md",
        "budi.md",
        "citra.md",
        "dewi.md",
    ]
    assert "Every exercise has full marks." in (tmp_path / "feedback" / "ana.md").read_text()


def test_the_teachers_grading_seed_is_never_shown():
    r = submission("dewi", {"a": "failed"})
    for source, shown in (
        ("grading_seed", False),
        ("$GRADER_GRADING_SEED", False),
        ("seed", True),
        ("recorded", True),
    ):
        r.environment = {"grader": "1", "seed": 987654321, "seed_source": source}
        text = feedback.text(r, "en")
        assert ("987654321" in text) is shown, source
        assert shown or "the teacher's grading seed" in text

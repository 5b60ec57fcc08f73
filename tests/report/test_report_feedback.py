"""Feedback per student: every visible miss with its message, input and hint; hidden checks by
title and status only, whatever the result holds; wholly in the course's language."""

from dataclasses import replace

from classdata import klass, submission

from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult
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
    assert "`ex` has full marks." in (tmp_path / "feedback" / "ana.md").read_text()


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


def _unwritten(cid: str, function: str, hidden: bool = False) -> CheckResult:
    """A check blocked by a function of the starter, which raises NotImplementedError."""
    return CheckResult(
        id=cid,
        title=Text(f"{cid} (id)", cid),
        kind="value",
        status="error",
        points=0.0,
        max_points=2.0,
        message=Text(f"{function} melempar NotImplementedError", f"{function} raised it"),
        counterexample="x = tensor([0.0])",
        hint=Text(f"petunjuk {cid}", f"hint for {cid}"),
        traceback=[
            f'File "{function}.py", line 3, in {function}',
            "    raise NotImplementedError",
        ],
        cause=f"raised:NotImplementedError:{function}",
        hidden=hidden,
    )


def _starter(eid: str, *functions: str, file: str | None = None) -> ExerciseResult:
    rows = [_unwritten(f"{fn}_{n}", fn) for fn in functions for n in (1, 2, 3)]
    return ExerciseResult(
        id=eid, title=Text(f"Judul {eid}", f"Title {eid}"), status="failed", checks=rows, file=file
    )


def test_an_exercise_not_started_is_one_line_naming_the_file_to_edit():
    started = submission("ana", {"a": "failed"}).exercises[0]
    r = SubmissionResult(
        submission="ana",
        exercises=[
            _starter("manual_gradient", "df", "grad_g", file="manual_gradient/manual_gradient.py"),
            started,
        ],
        environment={"grader": "1", "seed": 7},
    )
    text = feedback.text(r, "en")
    assert "## · Title manual\\_gradient (`manual_gradient`): 0/12 points" in text
    assert (
        "Not started: write df, grad\\_g in manual\\_gradient/manual\\_gradient.py (its "
        "docstrings say what to do), then run `python -m grader` again." in text
    )
    assert "| · not started |" in text and "| ✘ failed |" in text
    for detail in ("raised it", "hint for df_1", "tensor([0.0])", "raise NotImplementedError"):
        assert detail not in text  # not once per check, not at all
    assert "a is wrong" in text and "**Hint:** hint for a" in text  # a started one: in full
    indonesian = feedback.text(r, "id")
    assert (
        "Belum mulai: tulis df, grad\\_g di manual\\_gradient/manual\\_gradient.py" in indonesian
    )
    assert "| · belum mulai |" in indonesian and "Not started" not in indonesian


def test_a_course_of_untouched_starters_is_a_short_file():
    ids = [f"ex{n}" for n in range(16)]
    r = SubmissionResult(
        submission="budi",
        exercises=[_starter(i, "f", "g", file=f"{i}.py") for i in ids],
        environment={},
    )
    text = feedback.text(r, "en")
    assert text.count("Not started: write f, g in ") == 16
    assert len(text.splitlines()) < 100  # a heading and a line each, not 96 blocks


def test_a_class_starter_is_not_started_by_its_hash_where_its_checks_cannot_tell():
    # batch conceals a hidden check's cause, and a starter may hold code that runs (the
    # one to debug): the manifest's hash of the file says it is the starter as handed out.
    ex = submission("citra", {"a": "failed", "h": "failed"}).exercises[0]
    r = SubmissionResult(submission="citra", exercises=[ex], environment={})
    seen = []

    def attempt(submission_id, exercise_id):
        seen.append((submission_id, exercise_id))
        return "untouched"

    text = feedback.text(r, "en", attempt)
    assert seen == [("citra", "ex")]
    assert "Not started: edit ex.py (its docstrings say what to do)" in text
    assert "a is wrong" not in text and "title of h" not in text
    assert "a is wrong" in feedback.text(r, "en", lambda s, e: "attempted")


def test_a_class_starter_edited_a_little_is_not_started_by_its_visible_checks():
    # batch conceals what its hidden checks saw (no cause): the visible ones tell, unless a
    # hidden check passes (the student wrote what only a hidden check calls).
    ex = _starter("ex", "f", file="ex.py")
    concealed = replace(ex.checks[0], id="h", hidden=True, cause=None, message=None)
    r = SubmissionResult(
        submission="eko", exercises=[replace(ex, checks=[*ex.checks, concealed])], environment={}
    )
    assert "Not started: write f in ex.py" in feedback.text(r, "en", lambda s, e: "attempted")
    passing = replace(concealed, status="passed", points=2.0)
    r.exercises[0] = replace(ex, checks=[*ex.checks, passing])
    assert "Not started" not in feedback.text(r, "en", lambda s, e: "attempted")


def test_batch_feedback_uses_the_manifest(tmp_path):
    r = submission("dewi", {"a": "failed"})
    feedback.write(tmp_path, [r], "en", attempt=lambda s, e: "untouched")
    assert "Not started: edit ex.py" in (tmp_path / "feedback" / "dewi.md").read_text()


def test_full_marks_are_said_of_the_exercises_graded_only():
    one = submission("ana", {})
    assert "`ex` has full marks." in feedback.text(one, "en")
    assert "`ex` mendapat nilai penuh." in feedback.text(one, "id")
    two = replace(one, exercises=[one.exercises[0], replace(one.exercises[0], id="ex2")])
    assert "All 2 exercises graded have full marks." in feedback.text(two, "en")
    assert "Semua 2 latihan yang dinilai mendapat nilai penuh." in feedback.text(two, "id")
    for text in (feedback.text(one, "en"), feedback.text(two, "en")):
        assert "Every exercise" not in text

"""Grade exports for Canvas, Moodle and Google Classroom (grader.report.classview.lms): the
documented columns, the student's identifier from a GitHub Classroom folder name, and no cell a
spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import io

from classdata import klass, submission

from grader.report.classview import lms
from grader.specs.model import Text


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _clones():
    """GitHub Classroom clones of assignment `latihan-autograd`."""
    return [
        submission("latihan-autograd-ana", {}),
        submission("latihan-autograd-andi-b", {"a": "failed"}),
    ]


def test_write_all_writes_the_three_files_and_their_totals(tmp_path):
    paths = lms.write_all(tmp_path, klass(), ["ex"], "en")
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [
        "lms/canvas.csv",
        "lms/moodle.csv",
        "lms/google_classroom.csv",
        "lms/canvas_total.csv",
        "lms/moodle_total.csv",
        "lms/google_classroom_total.csv",
    ]
    assert all(p.read_text(encoding="utf-8").count("\n") >= 5 for p in paths)


def test_canvas_has_its_identity_columns_and_a_points_possible_row():
    rows = _rows(lms.canvas_text(klass(), ["ex"], "en"))
    assert rows[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "Exercise | one (ex)",
    ]
    assert rows[1] == ["Points Possible", "", "", "", "", "4"]
    assert rows[2:] == [
        ["ana", "", "", "", "", "4"],
        ["budi", "", "", "", "", "2"],
        ["citra", "", "", "", "", "0"],
        ["dewi", "", "", "", "", "1"],
    ]


def test_canvas_header_is_one_canvas_accepts():
    """Canvas's importer: the first column holds "Student", the second "ID", and the last
    identity column (after SIS User ID, SIS Login ID) "Section"; the assignment columns follow."""
    header = _rows(lms.canvas_text(klass(), ["ex"], "id"))[0]
    assert "Student" in header[0] and "ID" in header[1]
    assert header[2:4] == ["SIS User ID", "SIS Login ID"] and "Section" in header[4]
    assert header[5] == "Exercise | one (id) (ex)"


def test_moodle_and_classroom_columns():
    moodle = _rows(lms.moodle_text(klass(), ["ex"], "en"))
    assert moodle[0] == ["Username", "ID number", "Email address", "Exercise | one (ex)"]
    assert moodle[1] == ["ana", "", "", "4"]
    classroom = _rows(lms.classroom_text(klass(), ["ex"], "en"))
    assert classroom[0] == [
        "Email Address",
        "First Name",
        "Last Name",
        "Student",
        "Exercise | one (ex)",
    ]
    assert classroom[2] == ["", "", "", "budi", "2"]


def test_an_exercise_a_result_lacks_is_an_empty_cell():
    rows = _rows(lms.canvas_text([submission("ana", {})], ["ex", "other"], "en"))
    assert rows[0][-1] == "other (other)"
    assert rows[1][-2:] == ["4", ""] and rows[2][-2:] == ["4", ""]


def test_a_github_classroom_prefix_is_stripped():
    for text in (lms.canvas_text, lms.moodle_text, lms.classroom_text):
        body = text(_clones(), ["ex"], "en")
        assert "latihan-autograd" not in body
    rows = _rows(lms.moodle_text(_clones(), ["ex"], "en"))
    assert [r[0] for r in rows[1:]] == ["ana", "andi-b"]
    assert lms.infer_assignment(["latihan-autograd-ana", "latihan-autograd-andi-b"]) == (
        "latihan-autograd"
    )


def test_the_prefix_given_wins_and_none_is_guessed_where_unsure():
    assert lms.student("hw1-ana", "hw1") == "ana"
    assert lms.student("hw1-ana", "") == "hw1-ana"
    assert lms.student("hw1-", "hw1") == "hw1-"
    rows = _rows(lms.moodle_text(_clones(), ["ex"], "en", assignment=""))
    assert rows[1][0] == "latihan-autograd-ana"
    assert lms.infer_assignment(["hw1-ana"]) is None  # one name: no common prefix to trust
    assert lms.infer_assignment(["ana", "budi"]) is None
    assert lms.infer_assignment(["x-ana", "x-bu di"]) is None  # not a login after the prefix


def test_an_email_identifier_fills_the_email_columns():
    results = [submission("ana@kampus.ac.id", {}), submission("budi", {})]
    moodle = _rows(lms.moodle_text(results, ["ex"], "en"))
    assert moodle[1][:3] == ["ana@kampus.ac.id", "", "ana@kampus.ac.id"]
    assert moodle[2][:3] == ["budi", "", ""]
    classroom = _rows(lms.classroom_text(results, ["ex"], "en"))
    assert classroom[1][0] == "ana@kampus.ac.id"


def test_no_cell_is_a_formula_and_scores_stay_numbers():
    names = ['=HYPERLINK("http://x","y")', "+1", "-2", "@SUM(A1)", " =1+1"]
    results = [submission(n, {}) for n in names]
    results[0].exercises[0].checks[0].points = -3.0  # a negative score stays a number
    for text in (lms.canvas_text, lms.moodle_text, lms.classroom_text):
        rows = _rows(text(results, ["ex"], "en", assignment=""))
        cells = [c for row in rows for c in row]
        named = [c for c in cells if c.lstrip(" ").lstrip("'") in names]
        assert len(named) == len(names) and all(c.startswith("'") for c in named)
        assert "-1" in cells  # the hostile first row's score: -3 + 1 + 1


def test_a_formula_in_a_title_is_neutralised_too():
    result = submission("ana", {})
    result.exercises[0].title = Text(id="=cmd|' /C calc'!A0", en="=cmd|' /C calc'!A0")
    header = _rows(lms.moodle_text([result], ["ex"], "en"))[0]
    assert header[-1].startswith("'=")

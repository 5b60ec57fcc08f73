"""The CSV gradebook: one row per submission, a column per exercise, the total."""

import csv
import io

from classdata import klass, submission

from grader.report import csvout


def test_one_row_per_submission_with_exercise_columns_and_total(tmp_path):
    results = klass()
    csvout.write(tmp_path / "grades.csv", results, ["ex"])
    with open(tmp_path / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["submission"] for r in rows] == ["ana", "budi", "citra", "dewi"]
    assert list(rows[0]) == ["submission", "ex", "total", "max_score"]
    assert [(r["ex"], r["total"], r["max_score"]) for r in rows] == [
        ("4", "4", "4"),
        ("2", "2", "4"),
        ("0", "0", "4"),
        ("1", "1", "4"),
    ]


def test_an_exercise_a_result_lacks_is_an_empty_cell():
    text = csvout.text([submission("ana", {})], ["ex", "other"])
    row = list(csv.DictReader(io.StringIO(text)))[0]
    assert row["ex"] == "4" and row["other"] == ""


def test_names_with_commas_and_quotes_are_quoted():
    text = csvout.text([submission('o"neil, jr', {})], ["ex"])
    row = list(csv.DictReader(io.StringIO(text)))[0]
    assert row["submission"] == 'o"neil, jr'


def test_a_name_a_spreadsheet_would_run_is_shown_as_text():
    names = ['=HYPERLINK("http://x","y")', "+1", "-2", "@SUM(A1)", "\tx", "ana"]
    text = csvout.text([submission(n, {}) for n in names], [])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert [r[0] for r in rows[1:]] == ["'" + n for n in names[:-1]] + ["ana"]


def test_every_text_cell_is_neutralised_and_numbers_stay_numbers():
    r = submission(" =1+1", {})
    r.exercises[0].checks[0].points = -6.0  # a penalty: a negative score is a number
    text = csvout.text([r], ["@ex", "ex"])
    header, row = list(csv.reader(io.StringIO(text, newline="")))
    assert header == ["submission", "'@ex", "ex", "total", "max_score"]
    assert row[0] == "' =1+1"
    assert row[2] == row[3] == "-4" and row[1] == ""  # numbers, unquoted by any apostrophe
    assert csvout.cell("-") == "'-" and csvout.cell("ana-1") == "ana-1" and csvout.cell("") == ""

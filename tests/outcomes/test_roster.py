"""The class roster (grader.outcomes.roster): GitHub Classroom's export and a plain CSV read
alike, matched to submissions by login, and joined into the LMS files (lms.py)."""

from __future__ import annotations

import csv
import io

import pytest
from classdata import klass

from grader.common.errors import GraderError
from grader.outcomes import roster
from grader.report.classview import lms

CLASSROOM = """\ufeff"identifier","github_username","github_id","name"
"ana@kampus.ac.id","ana","101","Ana Putri"
"S-2002","Budi","102","Budi Santoso"
"siti@kampus.ac.id","","",""
"zaki@kampus.ac.id","zaki","104","Zaki"
"""
PLAIN = "Login,Name,Email,LMS ID\nana,Ana Putri,ana@k.id,9001\ncitra,Citra,,9003\n"


def test_classroom_and_plain_rosters_read_alike():
    people = {p.login: p for p in roster.parse(CLASSROOM).people}
    assert set(people) == {"ana", "Budi", "zaki"}  # an entry with no account is no student
    assert people["ana"] == roster.Person("ana", "Ana Putri", "ana@kampus.ac.id", "")
    assert people["Budi"].lms_id == "S-2002" and people["Budi"].email == ""
    plain = {p.login: p for p in roster.parse(PLAIN).people}
    assert plain["ana"] == roster.Person("ana", "Ana Putri", "ana@k.id", "9001")


def test_a_roster_without_logins_or_with_one_twice_is_refused():
    with pytest.raises(GraderError, match="no login column"):
        roster.parse("name,email\nAna,a@b.c\n", "r.csv")
    with pytest.raises(GraderError, match="appears twice"):
        roster.parse("login\nana\nANA\n")


def test_submissions_match_by_login_and_both_sides_missing_are_named():
    results = klass()  # ana, budi, citra, dewi
    names = ["latihan-" + r.submission for r in results]
    for r, name in zip(results, names):
        r.submission = name
    found = lms.people(results, roster.parse(CLASSROOM))
    assert {s: p.login for s, p in found.people.items()} == {
        "latihan-ana": "ana",
        "latihan-budi": "Budi",
    }
    assert found.unlisted == ["latihan-citra", "latihan-dewi"]
    assert [p.login for p in found.absent] == ["zaki"]


def test_the_lms_files_take_the_roster_and_offer_one_total_column():
    results = klass()
    people = lms.people(results, roster.parse(PLAIN)).people
    ex = sorted({e.id for r in results for e in r.exercises})
    canvas = list(csv.DictReader(io.StringIO(lms.canvas_text(results, ex, "en", people=people))))
    ana = next(r for r in canvas if r["Student"] == "Ana Putri")
    assert ana["SIS User ID"] == "9001" and ana["SIS Login ID"] == "ana@k.id"
    assert any(r["Student"] == "budi" and r["SIS User ID"] == "" for r in canvas)
    moodle = list(csv.DictReader(io.StringIO(lms.moodle_text(results, ex, "en", people=people))))
    assert next(r for r in moodle if r["Username"] == "citra")["ID number"] == "9003"
    total = lms.moodle_text(results, ex, "en", people=people, total=True)
    rows = list(csv.reader(io.StringIO(total)))
    assert rows[0] == [*lms.MOODLE_IDENTITY, "Total"]
    assert {r[0]: float(r[3]) for r in rows[1:]} == {r.submission: r.score for r in results}
    classroom = lms.classroom_text(results, ex, "en", people=people)
    assert "ana@k.id,Ana,Putri,ana" in classroom

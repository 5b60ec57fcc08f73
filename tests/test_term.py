"""A whole term, end to end, as a class lives it: the real course released; a class of GitHub
Classroom clones of that release with dated commits (answers in the .py, answers in the notebook,
partial, late with an on-time commit, a renamed-and-reordered copy, untouched, a syntax error);
the students' own `python -m grader` in two of them; the teacher's `batch --deadline`; its
gradebook, LMS files, summary and report page, drawn in a real browser. Every junction of the
term is the previous command's real output (tests/term.py builds the class)."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import browser
import pytest
import term

from grader.loader import specfile

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@dataclass
class Term:
    template: Path
    clones: dict[str, Path]
    own: dict[str, tuple[dict, str]]
    """login: (the result JSON of the student's own `python -m grader check`, what it printed)."""
    out: Path
    batch_log: str
    results: dict[str, dict]
    maxima: dict[str, float]
    """Each exercise's points in the teacher's grading (hidden checks included)."""


def _run(args: list, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="100")
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )


@pytest.fixture(scope="module")
def course_term(tmp_path_factory) -> Term:
    base = tmp_path_factory.mktemp("term")
    template = term.release(base / "template")
    clones = term.build_class(template, base / "class", term.students(template))
    own = {}
    for login in ("budi", "citra"):  # their own grader, in their own clone, as they run it
        done = _run(["check", "--lang", "en", "--json", base / f"{login}.json"], clones[login])
        assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
        result = json.loads((base / f"{login}.json").read_text())
        assert done.returncode == (0 if result["score"] == result["max_score"] else 1)
        own[login] = (result, done.stdout)
    out = base / "out"
    done = _run(
        ["batch", base / "class", "--out", out, "--deadline", term.DEADLINE, "--lang", "en"],
        term.ROOT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    document = json.loads((out / "results.json").read_text())
    results = {s["submission"].rsplit("-", 1)[-1]: s for s in document["submissions"]}
    exercises = specfile.discover(term.ROOT / "exercises", root=term.ROOT)
    maxima = {e.id: e.max_points for e in exercises}
    return Term(template, clones, own, out, done.stdout + done.stderr, results, maxima)


def scores(result: dict) -> dict[str, float]:
    return {e["id"]: e["score"] for e in result["exercises"]}


def test_every_student_gets_the_score_their_answers_deserve(course_term):
    t, full = course_term, course_term.maxima
    total = sum(full.values())
    got = {login: r["score"] for login, r in t.results.items()}
    assert got == {
        "ana": total,  # answers in the .py
        "budi": total,  # answers in the notebooks
        "citra": sum(full[e] for e in ("graph_tracking", "no_grad_inference", "retain_graph")),
        "dewi": full["graph_tracking"] + full["manual_gradient"],  # the on-time commit
        "eko": got["hana"],  # a disguised copy of hana's answers works as hers does
        "fajar": 0,
        "gita": total - full["grad_clipping"],
        "hana": total,  # her own manual_gradient, the keys elsewhere
        "irma": got["irma"],
        "joko": got["joko"],  # (below: their mistakes lose points, the rest is full)
    }, t.batch_log[-2000:]
    for login, wrong in (("irma", {"manual_sgd", "grad_accumulation"}), ("joko", {"manual_sgd"})):
        mine = scores(t.results[login])
        assert {e for e, s in mine.items() if s < full[e]} == wrong, (login, mine)
        assert all(mine[e] > 0 for e in wrong), (login, mine)
    assert scores(t.results["citra"])["retain_graph"] == full["retain_graph"]
    gita = {e["id"]: e for e in t.results["gita"]["exercises"]}
    assert gita["grad_clipping"]["status"] == "error"
    assert "SyntaxError" in gita["grad_clipping"]["message"]


def test_the_file_graded_is_the_answer_and_the_result_says_so(course_term):
    budi = {e["id"]: e for e in course_term.results["budi"]["exercises"]}
    for exercise_id, e in budi.items():
        assert e["file"] == f"notebooks/{exercise_id}.ipynb"
        assert e["ignored"] == [
            {"file": f"exercises/{exercise_id}/{exercise_id}.py", "why": "starter"}
        ]
    fajar = course_term.results["fajar"]["exercises"]
    assert all(e["untouched"] and e["file"].endswith(".py") for e in fajar)
    feedback = (course_term.out / "feedback" / "latihan-autograd-budi.md").read_text()
    assert "(your notebook)" in feedback


def test_the_late_commit_is_reported_and_the_on_time_one_graded(course_term):
    dewi = course_term.results["dewi"]
    on_time = term.git(course_term.clones["dewi"], "rev-parse", "HEAD~1").strip()
    assert dewi["late"]["commit"] == on_time
    assert dewi["late"]["later_commits"] == 1 and not dewi["late"]["graded_late"]
    summary = (course_term.out / "summary.md").read_text()
    late = summary[summary.index("### Late submissions") :].split("###")[1]
    assert "dewi" in late and on_time[:10] in late
    assert all(login not in late for login in ("ana", "budi", "eko", "hana"))


def test_the_students_own_grader_shows_the_teachers_visible_score(course_term):
    for login, (own, printed) in course_term.own.items():
        batch = course_term.results[login]
        visible = sum(
            c["points"]
            for e in batch["exercises"]
            for c in e["checks"]
            if not (c["hidden"] or c["bonus"])
        )
        assert own["score"] == visible > 0, login
        assert re.search(rf"Total: {visible:g}/\d+", printed), printed[-500:]
        assert own["environment"]["seed_source"] == "recorded"


def test_the_disguised_copy_is_the_first_pair_and_shared_cells_are_none(course_term):
    summary = (course_term.out / "summary.md").read_text()
    pairs = summary[summary.index("Most similar:") :].splitlines()[2:]
    first = pairs[0].replace("\\", "")
    assert "manual_gradient" in first and "eko" in first and "hana" in first, pairs
    # every notebook holds the same set-up and grading cells: no reason to pair anyone
    assert not any("budi" in p or "citra" in p for p in pairs), pairs


def test_the_gradebook_and_the_lms_files_hold_each_student(course_term):
    t = course_term
    with open(t.out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {r["submission"].rsplit("-", 1)[-1]: r for r in csv.DictReader(f)}
    assert {k: float(r["total"]) for k, r in rows.items()} == {
        k: r["score"] for k, r in t.results.items()
    }
    assert rows["dewi"]["late_commits"] == "1"
    lms = t.out / "lms"
    for name, who in (("canvas.csv", "Student"), ("moodle.csv", "Username")):
        with open(lms / name, newline="", encoding="utf-8-sig") as f:
            table = [r for r in csv.DictReader(f) if r[who] != "Points Possible"]
        assert sorted(r[who] for r in table) == sorted(t.results), name
        budi = next(r for r in table if r[who] == "budi")
        assert (
            float(budi["Debug a neural network that produces NaN gradients (nan_debugging)"])
            == (t.maxima["nan_debugging"])
        )
    with open(lms / "google_classroom.csv", newline="", encoding="utf-8-sig") as f:
        assert sorted(r["Student"] for r in csv.DictReader(f)) == sorted(t.results)


def test_the_report_page_loads_in_a_real_browser(course_term, tmp_path):
    page = course_term.out / "report.html"
    text = page.read_text(encoding="utf-8")
    assert "latihan-autograd-dewi" in text and "manual_gradient" in text
    console, shot, log = browser.draw(page, tmp_path)
    assert console == []
    assert shot.is_file() and shot.stat().st_size > 10_000, log[-2000:]


def test_a_roster_joined_by_merge_fills_the_lms_identifiers(course_term, tmp_path):
    roster = tmp_path / "classroom_roster.csv"
    rows = ['"identifier","github_username","github_id","name"']
    for n, login in enumerate(sorted(course_term.results)):
        if login != "fajar":  # a clone with no roster entry
            rows.append(f'"{login}@kampus.ac.id","{login}","{100 + n}","{login.title()} Siswa"')
    rows.append('"zaki@kampus.ac.id","zaki","199","Zaki Siswa"')  # never accepted the assignment
    roster.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "joined"
    done = _run(["merge", course_term.out, "--out", out, "--roster", roster], term.ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "zaki (Zaki Siswa)" in done.stderr and "latihan-autograd-fajar" in done.stderr
    with open(out / "lms" / "canvas.csv", newline="", encoding="utf-8-sig") as f:
        canvas = {r["Student"]: r for r in csv.DictReader(f)}
    assert canvas["Hana Siswa"]["SIS Login ID"] == "hana@kampus.ac.id"
    with open(out / "lms" / "moodle_total.csv", newline="", encoding="utf-8-sig") as f:
        moodle = {r["Username"]: r for r in csv.DictReader(f)}
    assert moodle["eko"]["Email address"] == "eko@kampus.ac.id"
    assert (
        float(moodle["dewi"]["Total (latihan-autograd)"]) == course_term.results["dewi"]["score"]
    )
    summary = (out / "summary.md").read_text()
    assert "`zaki` (Zaki Siswa)" in summary and "`latihan-autograd-fajar`" in summary
    joined = json.loads((out / "results.json").read_text())["submissions"]
    assert {s["student"]["name"] for s in joined if "student" in s} == {
        f"{login.title()} Siswa" for login in course_term.results if login != "fajar"
    }


def test_the_report_page_opens_on_every_student_and_the_copied_pair(course_term):
    text = (course_term.out / "report.html").read_text(encoding="utf-8")
    table = text[text.index("id=students-by-name") : text.index("id=students-by-total")]
    for login in course_term.results:
        link = f'href="feedback/latihan-autograd-{login}.md"'
        assert link in table, login
        assert (course_term.out / "feedback" / f"latihan-autograd-{login}.md").is_file()
    assert "commit(s) after the deadline" in table  # dewi
    assert "id=timeline" in text and "id=distributions" in text
    pairs = text[text.index("id=course-pairs") :].split("</table>")[0]
    assert pairs.count("<tr><td class=n>") == 1 and "eko" in pairs and "hana" in pairs


def test_the_class_mistakes_are_named_in_words_with_students_and_checks(course_term):
    text = (course_term.out / "report.html").read_text(encoding="utf-8")
    causes = text[text.index("<table id=causes>") :].split("</table>")[0]
    rows = re.findall(
        r"<tr><td><code>(\w+)</code></td><td>([^<]*)</td><td class=n>(\d+)</td>"
        r"<td>(.*?)</td></tr>",
        causes,
    )
    named = {
        (ex, words): (int(n), re.findall(r"<code>(\w+)</code>", checks))
        for ex, words, n, checks in rows
    }
    reset = "the old gradient was not reset (.grad accumulates)"
    assert named[("manual_sgd", reset)][0] == 2  # irma and joko
    assert "sgd_zero_grad" in named[("manual_sgd", reset)][1]
    assert named[("grad_accumulation", reset)][0] == 1  # irma
    assert "uneven_chunks_old_grads" in named[("grad_accumulation", reset)][1]
    # the untouched starters (citra, dewi's on-time commit, fajar) are no mistake of the class's
    assert "not written yet" not in causes and "NotImplementedError" not in causes
    assert list(named)[0] == ("manual_sgd", reset)  # the most students first
    summary = (course_term.out / "summary.md").read_text(encoding="utf-8")
    section = summary[summary.index("### Causes the class hit most often") :].split("###")[1]
    assert f"| `manual_sgd` | {reset} | 2 | " in section and "`sgd_zero_grad`" in section
    results = course_term.results["joko"]["exercises"]
    sgd = next(e for e in results if e["id"] == "manual_sgd")
    (failed,) = [c for c in sgd["checks"] if c["status"] != "passed" and not c["hidden"]]
    assert failed["mistake"] == {"id": "grad_not_reset", "title": reset}

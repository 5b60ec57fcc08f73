"""The class report page (grader.report.classview.page): one self-contained HTML file with the
histogram, the pass rates lowest first and the causes; every name escaped; and, where Chromium is
installed, a page a real browser draws without a console error. The causes' counting and words
are tested in test_causes.py."""

from __future__ import annotations

import base64
import re
from datetime import datetime

import browser
import pytest
from classdata import klass, submission

from grader.outcomes import classstats
from grader.outcomes.gradebook import Change, Flip
from grader.report.classview import page, rates
from grader.report.classview.histogram import histogram_png
from grader.report.classview.words import LABELS

EVIL = "<script>alert(1)</script>"


def _class():
    """klass(), one more student with a hostile name, and causes on some failed checks."""
    results = klass() + [submission(EVIL, {"a": "failed"})]
    by_name = {r.submission: r for r in results}
    by_name["budi"].exercises[0].checks[0].cause = "raised:ValueError:f"
    by_name["dewi"].exercises[0].checks[0].cause = "raised:ValueError:f"
    by_name["dewi"].exercises[0].checks[1].cause = "forbidden:torch.optim:sgd_step"
    by_name["citra"].exercises[0].checks[2].cause = "raised:KeyError:secret"  # hidden check
    by_name[EVIL].exercises[0].checks[0].cause = "raised:<img src=x>:f"
    return results


def _write(tmp_path, lang="en", **extra):
    results = _class()
    options = {
        "late": [(EVIL, "late: 2 commit(s), 3 h 10 min after"), ("budi", "late: 1 commit(s)")],
        "similarity": [("ex", "ana", EVIL, 0.93), ("ex", "budi", "citra", 0.41)],
        "changes": [
            Change(
                submission=EVIL,
                previous_run=3,
                score_before=2,
                score_after=4,
                max_before=4,
                max_after=4,
                flips=[Flip("ex", "a", "failed", "passed", 0, 2)],
                causes=["ex: the student's file was changed", "seed 1 -> 2"],
            )
        ],
    }
    options.update(extra)
    path = tmp_path / page.FILE
    page.write(path, results, classstats.compute(results), lang, **options)
    return path


def test_the_page_is_self_contained(tmp_path):
    html = _write(tmp_path).read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href|action)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "http://" not in html and "https://" not in html
    assert "<script" not in html.lower()  # no script at all, inline or not
    assert "<link" not in html.lower() and "@import" not in html
    assert "default-src 'none'" in html  # and nothing may be loaded even so


def test_the_histogram_is_an_inline_png(tmp_path):
    pytest.importorskip("matplotlib")
    html = _write(tmp_path).read_text(encoding="utf-8")
    match = re.search(r'<img id="histogram"[^>]* src="data:image/png;base64,([^"]+)"', html)
    assert match
    png = base64.b64decode(match.group(1))
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


def test_without_matplotlib_the_histogram_is_inline_svg(tmp_path, monkeypatch):
    monkeypatch.setattr(rates, "histogram_png", lambda stats, lang: None)
    html = _write(tmp_path).read_text(encoding="utf-8")
    assert "<svg" in html and "<rect" in html and "data:image/png" not in html


def test_the_histogram_is_the_same_bytes_every_time(tmp_path):
    pytest.importorskip("matplotlib")
    stats = classstats.compute(klass())
    words = LABELS["en"]
    assert histogram_png(stats, words) == histogram_png(stats, words)
    first = _write(tmp_path).read_bytes()
    assert _write(tmp_path).read_bytes() == first


def test_checks_and_exercises_lowest_pass_rate_first(tmp_path):
    html = _write(tmp_path).read_text(encoding="utf-8")
    checks = html[html.index("<table id=checks>") :]
    checks = checks[: checks.index("</table>")]
    order = re.findall(r"<code>(ex\.[abh])</code>", checks)
    assert order == ["ex.a", "ex.b", "ex.h"]
    assert "1/5" in checks and "20%" in checks  # check a: 1 of 5 passed
    assert "Exercise | one" in html and "<table id=exercises>" in html


def test_causes_can_be_given(tmp_path):
    given = [page.Cause("ex", "overloaded", checks=7, submissions=3)]  # causes.Cause
    html = _write(tmp_path, causes=given).read_text(encoding="utf-8")
    table = html[html.index("<table id=causes>") :]
    assert "overloaded" in table and "ValueError" not in table.split("</table>")[0]


def test_untrusted_names_and_texts_are_escaped(tmp_path):
    html = _write(tmp_path).read_text(encoding="utf-8")
    assert EVIL not in html and "<img src=x>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    for section in ("late", "similarity", "changes"):
        table = html[html.index(f"<table id={section}>") :]
        assert "&lt;script&gt;" in table.split("</table>")[0]


def test_missing_sections_and_languages(tmp_path):
    html = _write(tmp_path, late=None, similarity=None, changes=None).read_text(encoding="utf-8")
    assert "No deadline." in html
    assert "<table id=similarity>" not in html and "<table id=changes>" not in html
    html = _write(tmp_path, late=[], similarity=[], changes=[]).read_text(encoding="utf-8")
    assert "No late submissions." in html and "No similar pairs." in html
    assert "No submission changed" in html
    html = _write(tmp_path, lang="id").read_text(encoding="utf-8")
    assert '<html lang="id">' in html and "Laporan kelas" in html
    assert "berkas siswa diubah" in html and "lulus" in html
    assert "Latihan, tingkat lulus terendah dulu" in html


def test_an_empty_class(tmp_path):
    path = tmp_path / page.FILE
    page.write(path, [], classstats.compute([]), "en")
    assert "No submissions." in path.read_text(encoding="utf-8")


def test_a_real_browser_draws_the_page(tmp_path):
    pytest.importorskip("matplotlib")
    console, shot, log = browser.draw(_write(tmp_path), tmp_path)
    assert console == []  # the page makes no console message
    assert shot.is_file() and shot.stat().st_size > 10_000, log[-2000:]
    # Text, bars in several colours and the histogram's antialiased edges: far from blank.
    assert browser.distinct_colours(shot) > 50


def test_the_page_opens_on_every_student_with_a_link_to_their_feedback(tmp_path):
    results = _class()
    results[0].late = {
        "commit": "abc",
        "committed": "2026-12-05T20:15:00+07:00",
        "later_commits": 2,
        "late_seconds": 3600.0,
        "graded_late": False,
    }
    results[1].late = {
        "commit": "def",
        "committed": "2026-12-12T09:30:00+07:00",
        "later_commits": 0,
        "late_seconds": None,
        "graded_late": True,
    }
    names = {r.submission: f"Name of {r.submission}" for r in results}
    names["budi"] = "Aaron <b>"
    path = tmp_path / page.FILE
    page.write(
        path,
        results,
        classstats.compute(results),
        "en",
        late=[],
        names=names,
        deadline=datetime.fromisoformat("2026-12-10T23:59:00+07:00"),
    )
    html = path.read_text(encoding="utf-8")
    by_name = html[html.index("id=students-by-name") : html.index("id=students-by-total")]
    assert by_name.index("Aaron &lt;b&gt;") < by_name.index("Name of ana")
    assert by_name.count('href="feedback/') == len(results)
    assert 'href="feedback/budi.md"' in by_name and "<details><summary>By total" in html
    assert "commit(s) after the deadline" in by_name and "graded late" in by_name
    assert "id=distributions" in html and "id=timeline" in html and "deadline</text>" in html
    assert "<script" not in html.lower() and "Aaron <b>" not in html
    console, shot, log = browser.draw(path, tmp_path)
    assert console == [] and shot.is_file(), log[-2000:]

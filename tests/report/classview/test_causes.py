"""The mistakes and causes the class hit most often (grader.report.classview.causes): counted over
the submissions that attempted the exercise, a named mistake by its title, another cause as the
exception's type and the student's function, with how many students and which checks; in
report.html and summary.md."""

from __future__ import annotations

from classdata import klass, submission

from grader.outcomes import classstats
from grader.report import markdown
from grader.report.classview import causes, page
from grader.specs.model import Text

EVIL = "<script>alert(1)</script>"
NOT_RESET = Text(
    id="gradien lama tidak di-reset (.grad terakumulasi)",
    en="the old gradient was not reset (.grad accumulates)",
)


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


def _named(results, who: str, check: int):
    c = {r.submission: r for r in results}[who].exercises[0].checks[check]
    c.mistake, c.mistake_title = "grad_not_reset", NOT_RESET
    return c


def test_causes_count_failed_visible_checks_most_often_first():
    counted = causes.count(_class())
    assert [(c.cause, c.submissions, c.checks, c.check_ids) for c in counted] == [
        ("raised:ValueError:f", 2, 2, ("a",)),
        ("forbidden:torch.optim:sgd_step", 1, 1, ("b",)),
        ("raised:_img_src_x_:f", 1, 1, ("a",)),  # the worker's type name cut to a name
    ]  # the hidden check's cause is not counted; a check that only failed is not a cause
    assert causes.meaning("raised:ValueError:f", "en") == "f raised ValueError"
    assert "terlarang" in causes.meaning("forbidden:torch.optim:sgd_step", "id")
    assert "not written" in causes.meaning("raised:NotImplementedError:f", "en")
    assert causes.meaning("something else", "en") == "something else"


def test_a_named_mistake_is_counted_by_its_name_over_students_and_checks():
    results = _class()
    _named(results, "citra", 0)  # a failed check with no cause
    _named(results, "citra", 1)
    _named(results, "budi", 0).cause = "raised:ValueError:f"  # the mistake goes first
    counted = causes.count(results)
    first = counted[0]
    assert (first.cause, first.submissions, first.checks, first.check_ids) == (
        "mistake:grad_not_reset",
        2,
        3,
        ("a", "b"),
    )
    assert causes.words(first, "en") == NOT_RESET.en
    assert causes.words(first, "id") == NOT_RESET.id
    assert next(c for c in counted if c.cause == "raised:ValueError:f").submissions == 1


def test_the_page_and_the_summary_name_the_mistake_in_words():
    results = _class()
    _named(results, "citra", 0)
    _named(results, "ana", 0).status = "passed"  # a passed check's mistake is no mistake
    counted = causes.count(results)
    html = page.text(results, classstats.compute(results), "en")
    table = html[html.index("<table id=causes>") :].split("</table>")[0]
    assert "the old gradient was not reset (.grad accumulates)" in table
    assert "grad_not_reset" not in table and "mistake:" not in table
    assert "f raised ValueError" in table and "<td class=n>1</td><td><code>a</code>" in table
    assert "&lt;img" not in table and "<img" not in table
    summary = markdown.text(classstats.compute(results), "id", causes=counted)
    section = summary[summary.index("### Penyebab yang paling sering") :]
    row = next(line for line in section.splitlines() if "di-reset" in line)
    assert row == "| `ex` | gradien lama tidak di-reset (.grad terakumulasi) | 1 | `a` |"
    assert "| `ex` | f memunculkan ValueError | 2 | `a` |" in section


def test_an_untouched_starter_is_no_mistake_of_the_class():
    results = _class()
    by_name = {r.submission: r for r in results}
    by_name["ana"].exercises[0].checks[0].cause = "raised:NotImplementedError:f"
    by_name["ana"].exercises[0].untouched = True
    counted = causes.count(results)
    assert all(c.cause != "raised:NotImplementedError:f" for c in counted)
    skipped = causes.count(results, lambda sid, ex: "untouched" if sid == "dewi" else "attempted")
    assert {c.cause for c in skipped} == {"raised:ValueError:f", "raised:_img_src_x_:f"}
    assert next(c for c in skipped if c.cause == "raised:ValueError:f").submissions == 1


def test_no_cause_and_many_causes():
    assert "No named cause." in causes.section([], "en")
    assert causes.summary_lines([], "en")[-2] == "No named cause."
    many = [causes.Cause("ex", f"raised:E{i}:f", 1, 1, check_ids=("a",)) for i in range(25)]
    assert "and 5 more causes" in causes.section(many, "en")
    assert causes.section(many, "en").count("<tr>") == causes.TOP + 1
    assert "and 5 more causes" in "\n".join(causes.summary_lines(many, "en"))

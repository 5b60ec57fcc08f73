"""JUnit XML: a testsuite per submission, a testcase per check, readable by a real parser."""

import xml.etree.ElementTree as ET

from classdata import klass

from grader.report import junit


def _parse(tmp_path, results, lang="en"):
    junit.write(tmp_path / "junit.xml", results, lang)
    return ET.parse(tmp_path / "junit.xml").getroot()


def test_counts_per_suite_and_in_total(tmp_path):
    root = _parse(tmp_path, klass())
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("12", "5", "1")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["ana", "budi", "citra", "dewi"]
    assert suites["citra"].get("failures") == "3"
    assert suites["dewi"].get("errors") == "1"
    props = {p.get("name"): p.get("value") for p in suites["budi"].find("properties")}
    assert props == {"score": "2", "max_score": "4", "seed": "7"}


def test_a_failed_check_carries_message_counterexample_and_hint(tmp_path):
    root = _parse(tmp_path, klass())
    case = root.find("testsuite[@name='budi']/testcase[@name='ex.a']")
    assert case.get("classname") == "budi"
    failure = case.find("failure")
    # Markup and control characters from a student's message survive as text, not as XML.
    assert failure.get("message") == "a is wrong: got 1 <want> 2 & \ufffd"
    assert "x = tensor([4.5])" in failure.text and "hint for a" in failure.text
    assert root.find("testsuite[@name='dewi']/testcase[@name='ex.b']/error").get("type") == "error"
    assert root.find("testsuite[@name='ana']/testcase[@name='ex.a']").find("*") is None


def test_texts_follow_the_language(tmp_path):
    root = _parse(tmp_path, klass(), lang="id")
    failure = root.find("testsuite[@name='budi']/testcase[@name='ex.a']/failure")
    assert failure.get("message").endswith("(id)")


def test_a_missing_or_not_awarded_check_is_a_failure_never_a_skip(tmp_path):
    from dataclasses import replace

    from classdata import submission

    r = submission("eko", {})
    ex = r.exercises[0]
    r.exercises[0] = replace(
        ex,
        status="missing",
        message=None,
        checks=[replace(c, status="skipped", points=0.0) for c in ex.checks],
    )
    root = _parse(tmp_path, [r])
    assert root.find(".//skipped") is None
    suite = root.find("testsuite[@name='eko']")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "3", "0")

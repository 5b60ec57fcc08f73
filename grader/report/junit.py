"""JUnit XML: one testsuite per submission, one testcase per check, for CI dashboards."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from grader.common.safetext import atomic_write
from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult

# Characters XML 1.0 cannot hold at all (a student's exception message may contain them).
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# A testcase passes only when its check earned its points: a missing file, an empty one or a
# constraint not yet awarded (check status "skipped") is a failure, never a JUnit skip, which
# dashboards would not count against the student.
_TAG = {"failed": "failure", "error": "error", "timeout": "error", "skipped": "failure"}


def _clean(s: str) -> str:
    return _INVALID.sub("\ufffd", s)


def _num(x: float) -> str:
    return f"{x:g}"


def _body(e: ExerciseResult, c: CheckResult, lang: str) -> tuple[str, str]:
    """(short message, full text) of a check that did not pass."""
    message = c.message or e.message
    short = message.get(lang) if message is not None else c.status
    lines = [short]
    if c.counterexample:
        lines.append(f"counterexample: {c.counterexample}")
    lines += c.traceback or (e.traceback if c.message is None else [])
    if c.hint is not None:
        lines.append(f"hint: {c.hint.get(lang)}")
    return short, "\n".join(lines)


def _case(
    parent: ET.Element, r: SubmissionResult, e: ExerciseResult, c: CheckResult, lang: str
) -> None:
    # Named by ids, which stay the same across runs, so dashboards can track a check's history.
    case = ET.SubElement(parent, "testcase", classname=_clean(r.submission), name=f"{e.id}.{c.id}")
    tag = _TAG.get(c.status)
    if tag is not None:
        short, full = _body(e, c, lang)
        node = ET.SubElement(case, tag, message=_clean(short), type=c.status)
        node.text = _clean(
            f"{c.title.get(lang)} ({c.kind}, {_num(c.points)}/{_num(c.max_points)})\n{full}"
        )


def tree(results: list[SubmissionResult], lang: str) -> ET.ElementTree:
    root = ET.Element("testsuites", name="grader batch")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=_clean(r.submission))
        props = ET.SubElement(suite, "properties")
        for key, value in (
            ("score", _num(r.score)),
            ("max_score", _num(r.max_score)),
            ("seed", str(r.environment.get("seed"))),
        ):
            ET.SubElement(props, "property", name=key, value=value)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for e in r.exercises:
            for c in e.checks:
                _case(suite, r, e, c, lang)
                counts["tests"] += 1
                tag = _TAG.get(c.status)
                if tag is not None:
                    counts[
                        {"failure": "failures", "error": "errors", "skipped": "skipped"}[tag]
                    ] += 1
        for key, n in counts.items():
            suite.set(key, str(n))
            totals[key] += n
    for key, n in totals.items():
        root.set(key, str(n))
    ET.indent(root)
    return ET.ElementTree(root)


def write(path: Path, results: list[SubmissionResult], lang: str) -> None:
    body = ET.tostring(tree(results, lang).getroot(), encoding="unicode")
    atomic_write(Path(path), "<?xml version='1.0' encoding='utf-8'?>\n" + body)

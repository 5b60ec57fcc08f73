"""Every claim of docs/security.md's security model names the tests that prove it.

Each bold bullet (`- **Title**`) of the subsections of "## Security model", except "What is not
protected", ends with a sentence `Proved by: `tests/hostile/NAME.py`, `tests/PATH.py::test_name`.`
citing hostile cases (graded by tests/sandbox/test_hostile.py, so each must be a key of its
OUTCOMES) and test functions (which must exist). A claim no test proves is listed in UNPROVEN
with the reason, so that the gap stays visible. No grading runs here: the doc and the tests'
text are read.
"""

from __future__ import annotations

import importlib
import re
import sys

from conftest import ROOT

DOC = ROOT / "docs" / "security.md"
TESTS = ROOT / "tests"
SECTION = "## Security model"
NOT_CHECKED = {"What is not protected"}
"""Subsections whose bullets are not claims of protection (and are not bold)."""

UNPROVEN: dict[str, str] = {}
"""Bold titles (without a trailing period) of claims no test proves, each with the reason."""

PROVED = re.compile(r"Proved by: (`[^`]+`(?:, `[^`]+`)*)\.$")
HOSTILE_CASE = re.compile(r"tests/hostile/(\w+)\.py")
TEST_FUNCTION = re.compile(r"(tests/[\w/]+\.py)::(test_\w+)")


def bullets() -> list[tuple[str, str, str]]:
    """(subsection, bold title, whole text with its lines joined) of each bold bullet."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    assert SECTION in lines, f"{DOC}: no {SECTION!r} heading"
    found: list[tuple[str, str, list[str]]] = []
    subsection = ""
    current: list[str] | None = None
    for line in lines[lines.index(SECTION) + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("### "):
            subsection, current = line[4:].strip(), None
        elif line.startswith("- "):
            current = None
            title = re.match(r"- \*\*(.+?)\*\*", line)
            if title and subsection not in NOT_CHECKED:
                current = [line]
                found.append((subsection, title.group(1), current))
        elif line.startswith("  ") and current is not None:
            current.append(line)
        else:
            current = None
    return [(sub, title, " ".join(" ".join(text).split())) for sub, title, text in found]


def plain(title: str) -> str:
    return title.rstrip(".").strip()


def hostile_outcomes() -> dict:
    """OUTCOMES of tests/sandbox/test_hostile.py, imported as tests/sandbox's tests import it."""
    folder = str(TESTS / "sandbox")
    if folder not in sys.path:
        sys.path.append(folder)
    return importlib.import_module("test_hostile").OUTCOMES


def citations(text: str) -> list[str] | None:
    """The citations of a bullet's Proved by sentence; None if it has none."""
    found = PROVED.search(text)
    if found is None:
        return None
    return [c.strip("`") for c in found.group(1).split(", ")]


def citation_problem(citation: str, outcomes: dict) -> str | None:
    """Why a citation does not hold, or None."""
    case = HOSTILE_CASE.fullmatch(citation)
    if case:
        if not (ROOT / citation).is_file():
            return f"{citation} does not exist"
        if case.group(1) not in outcomes:
            return f"{case.group(1)} is not a case of OUTCOMES in tests/sandbox/test_hostile.py"
        return None
    test = TEST_FUNCTION.fullmatch(citation)
    if test is None:
        return f"{citation!r} is neither `tests/hostile/NAME.py` nor `tests/PATH.py::test_name`"
    path = ROOT / test.group(1)
    if not path.is_file():
        return f"{test.group(1)} does not exist"
    source = path.read_text(encoding="utf-8")
    if not re.search(rf"^(?:async\s+)?def {test.group(2)}\b", source, re.MULTILINE):
        return f"{test.group(1)} defines no function {test.group(2)}"
    return None


def test_the_security_model_has_bold_claims_in_each_subsection():
    found = bullets()
    subsections = {sub for sub, _, _ in found}
    assert {"Everywhere"} <= subsections, f"the parser found no claims of 'Everywhere': {found}"
    titles = [plain(title) for _, title, _ in found]
    assert len(titles) == len(set(titles)), f"two claims of the same title: {titles}"


def test_every_claim_says_which_tests_prove_it():
    missing = [
        f"{sub} / {title}"
        for sub, title, text in bullets()
        if citations(text) is None and plain(title) not in UNPROVEN
    ]
    assert missing == [], (
        f"claims of {DOC.name} without a closing 'Proved by: `tests/...`, ... .' sentence "
        f"(cite the tests that prove them, or list them in UNPROVEN with the reason): {missing}"
    )
    for sub, title, text in bullets():
        assert text.count("Proved by:") <= 1, f"{sub} / {title}: more than one 'Proved by:'"
        if "Proved by:" in text:
            assert citations(text) is not None, (
                f"{sub} / {title}: its 'Proved by:' sentence must end the bullet and cite "
                "backquoted paths separated by ', ', ending with a period"
            )


def test_every_citation_is_a_hostile_case_or_a_test_that_exists():
    outcomes = hostile_outcomes()
    problems = []
    for sub, title, text in bullets():
        cited = citations(text) or []
        if len(cited) != len(set(cited)):
            problems.append(f"{sub} / {title}: a citation is repeated")
        for citation in cited:
            problem = citation_problem(citation, outcomes)
            if problem:
                problems.append(f"{sub} / {title}: {problem}")
    assert problems == [], "\n".join(problems)


def test_unproven_lists_only_claims_of_the_doc_that_cite_nothing():
    cited = {plain(title): citations(text) for _, title, text in bullets()}
    stale = [title for title in UNPROVEN if title not in cited]
    assert stale == [], f"UNPROVEN names claims {DOC.name} no longer has: {stale}"
    proved = [title for title in UNPROVEN if cited[title] is not None]
    assert proved == [], f"UNPROVEN names claims that now cite their tests (remove them): {proved}"
    assert all(reason.strip() for reason in UNPROVEN.values()), (
        "every UNPROVEN entry needs a reason"
    )


def test_a_wrong_citation_is_caught():
    outcomes = hostile_outcomes()
    assert citation_problem("tests/hostile/key_network.py", outcomes) is None
    assert (
        citation_problem("tests/test_security_claims.py::test_a_wrong_citation_is_caught", {})
        is None
    )
    assert citation_problem("tests/hostile/no_such_case.py", outcomes)
    assert "OUTCOMES" in citation_problem("tests/hostile/key_network.py", {})  # not graded
    assert citation_problem("tests/sandbox/test_hostile.py::test_no_such_test", outcomes)
    assert citation_problem("tests/sandbox/test_hostile.py::test_hostile", outcomes)  # a prefix
    assert citation_problem("tests/sandbox/no_such_file.py::test_x", outcomes)
    assert citation_problem("grader/sandbox/trap.py", outcomes)

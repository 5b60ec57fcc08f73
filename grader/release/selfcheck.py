"""The checks a release passes before it is written (grader/release/build.py).

Every spec in it loads, holds no hidden check and no reference code, and grades from its recorded
examples; its config has no gradebook and no grading seed; no teacher's folder came along (nor
any plugin's teacher.py); no line of solutions/ and no line of reference code (the specs'
references and scenario references, the plugins' teacher.py) is in any of its files, in any form
a file holds it: a notebook's cells, string literals, base64 or hex, compressed
(grader/release/leaks.py); and its own
`python -m grader`, run as a subprocess in the release, grades the untouched starters 0 with no
traceback and the answer keys (solutions/) with every visible point. Each failure raises
GraderError naming the file and what to fix.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.common import plugins
from grader.common.errors import GraderError, SpecError
from grader.loader import config as config_mod
from grader.loader import specfile
from grader.release import leaks
from grader.specs.model import Exercise

PACKAGE = Path(__file__).resolve().parents[1]
TEACHER_ONLY = ("solutions", "tests", "benchmarks")
SHOWN = 5
"""Leaks and starter points listed in an error before "and N more"."""


def verify(
    *, folder: Path, root: Path, exercises: list[Exercise], python: str | None = None, on_step=None
) -> None:
    step = on_step or (lambda text: None)
    step("specs, config and layout")
    check_specs(folder, exercises)
    check_layout(folder)
    step("every link of the released documents names a file of the release")
    check_links(folder)
    step("no line of solutions/ or of reference code in any file")
    check_leaks(folder, root, exercises)
    step("the untouched starters score 0 (python -m grader check, in the release)")
    check_starters(folder, exercises, python)
    if (root / "solutions").is_dir():
        step("the answer keys get every visible point (python -m grader check, in the release)")
        check_keys(folder, root / "solutions", python)


def check_specs(folder: Path, exercises: list[Exercise]) -> None:
    try:
        loaded = specfile.discover(folder / "exercises", root=folder)
    except SpecError as exc:
        raise GraderError(f"release: a spec of the release does not load: {exc}") from None
    got, want = [e.id for e in loaded], [e.id for e in exercises]
    if got != want:
        raise GraderError(f"release: the release holds exercises {got}, expected {want}")
    for teacher, public in zip(exercises, loaded):
        if any(c.hidden for c in public.checks):
            raise GraderError(
                f"release: exercises/{public.id}/exercise.yaml still holds a hidden check"
            )
        if (
            public.recorded is None
            or public.references
            or any("reference" in c.options for c in public.checks)
        ):
            raise GraderError(
                f"release: exercises/{public.id}/exercise.yaml still holds "
                "reference code, or names no recorded examples"
            )
        kept = sum(c.hidden for c in teacher.checks) + teacher.hidden_checks
        if public.hidden_checks != kept:
            raise GraderError(
                f"release: exercises/{public.id}/exercise.yaml says "
                f"{public.hidden_checks} hidden check(s); the teacher's spec has "
                f"{kept}"
            )


def check_layout(folder: Path) -> None:
    for name in TEACHER_ONLY:
        if (folder / name).exists():
            raise GraderError(f"release: {name}/ must not be in the students' copy")
    for teacher in sorted((folder / "exercises").glob(f"*/{plugins.FOLDER}/{plugins.TEACHER}")):
        raise GraderError(
            f"release: {teacher.relative_to(folder)} (the code that computes "
            "answers) must not be in the students' copy"
        )
    if (folder / "config.yaml").is_file():
        try:
            gradebook = config_mod.load(folder / "config.yaml").gradebook
        except SpecError as exc:
            raise GraderError(f"release: the release's config.yaml does not load: {exc}") from None
        if gradebook is not None:
            raise GraderError("release: the release's config.yaml names a gradebook")
        if config_mod.load(folder / "config.yaml").grading_seed is not None:
            raise GraderError("release: the release's config.yaml holds the grading seed")


LINK = re.compile(r"!?\[(?P<text>[^\]\n]*)\]\((?P<target>[^()\s]+)\)")
"""A Markdown link or image: [text](target), ![text](target)."""
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
TEMPLATES = Path("grader") / "templates"
"""The package's templates: text the release writes elsewhere (the README), not documents read
where they lie, so their links are checked where they are written."""


def rewrite_links(text: str, replace) -> str:
    """text with each link outside code (fenced blocks, `code spans`) replaced by
    replace(match of LINK)."""
    out, fenced = [], False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or _FENCE.match(line):
            out.append(line)
            continue
        pieces, last = [], 0
        for code in _CODE_SPAN.finditer(line):
            pieces.append(LINK.sub(replace, line[last : code.start()]))
            pieces.append(code.group(0))
            last = code.end()
        pieces.append(LINK.sub(replace, line[last:]))
        out.append("".join(pieces))
    return "".join(out)


def links(text: str) -> list[str]:
    """The targets of text's links and images, outside code."""
    found: list[str] = []

    def note(m: re.Match) -> str:
        found.append(m.group("target"))
        return m.group(0)

    rewrite_links(text, note)
    return found


def relative_target(target: str) -> str | None:
    """A link's file part where it names a file of the repository (relative, not a URL, not an
    anchor of the page itself); None otherwise."""
    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith(("#", "/")):
        return None
    return target.split("#", 1)[0] or None


def anchors(text: str) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings: the heading's text as shown (links
    as their text), lower case, without what is not a letter, digit, space, `-` or `_`, spaces
    as `-`; a repeated one gets -1, -2, ..."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else re.match(r" {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        shown = LINK.sub(lambda m: m.group("text"), heading.group(1))
        slug = re.sub(r"[^\w\- ]", "", shown.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _documents(folder: Path) -> dict[Path, str]:
    """The release's Markdown files and its notebooks' markdown cells, by file: the text a
    student reads, links and all (the package's templates aside)."""
    out = {}
    for path in sorted(folder.rglob("*.md")):
        if not path.relative_to(folder).is_relative_to(TEMPLATES):
            out[path] = path.read_text(encoding="utf-8", errors="replace")
    for path in sorted(folder.rglob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (ValueError, AttributeError):
            continue  # the leak check and the grader report a notebook that cannot be read
        out[path] = "\n\n".join(
            "".join(c["source"]) if isinstance(c.get("source"), list) else str(c.get("source"))
            for c in cells
            if isinstance(c, dict) and c.get("cell_type") == "markdown"
        )
    return out


def check_links(folder: Path) -> None:
    """Every relative link of every released document (Markdown files, notebooks' markdown
    cells) names a file the release holds, and its anchor, into a Markdown file, a heading of
    that file: a student never follows a link to a teacher's guide the release does not hold."""
    folder = Path(folder)
    documents = _documents(folder)
    problems = []
    for path, text in documents.items():
        for target in links(text):
            file, _, anchor = target.partition("#")
            if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("/"):
                continue  # a URL, or a path from a root the release does not know
            where = (path.parent / file).resolve() if file else path.resolve()
            name = path.relative_to(folder).as_posix()
            if not where.is_relative_to(folder.resolve()) or not where.exists():
                problems.append(f"{name} links to {target}, which the release does not hold")
            elif anchor and where.suffix == ".md" and where.is_file():
                if anchor not in anchors(where.read_text(encoding="utf-8", errors="replace")):
                    problems.append(f"{name} links to {target}: no such heading there")
    if problems:
        raise GraderError(
            "release: "
            + "; ".join(problems[:SHOWN])
            + (f"; and {len(problems) - SHOWN} more" if len(problems) > SHOWN else "")
            + ". Link only to the files the students' copy holds (write a teacher's "
            "document as plain text), and to headings that exist"
        )


def _starters(exercises: list[Exercise]) -> list[Path]:
    """The starters the specs name (`file:`), as the teacher wrote them."""
    return [e.path.parent / e.file for e in exercises if (e.path.parent / e.file).is_file()]


def _handed_out(exercises: list[Exercise]) -> list[Path]:
    """The exercises' code a release holds on purpose: the starters the specs name and their
    plugins' code. Nothing else of an exercise's folder (a worked example there is not given)."""
    return [
        *_starters(exercises),
        *(p for e in exercises if e.plugin is not None for p in plugins.shipped(e.plugin)),
    ]


def given_lines(folder: Path, exercises: list[Exercise]) -> set[str]:
    """The fingerprints of the scaffold a key fills in, which never count: the starters' code
    (outside their docstrings and string literals) and the visible checks' `setup:` code (the
    students' worker runs it to build a scenario)."""
    code = [
        line
        for p in _starters(exercises)
        for line in leaks.code_lines(p.read_text(encoding="utf-8", errors="replace"))
    ]
    setups = [
        line
        for e in exercises
        for c in e.checks
        if not c.hidden and isinstance(c.options.get("setup"), str)
        for line in c.options["setup"].splitlines()
    ]
    return leaks.fingerprints(code + setups)


def shared_lines(folder: Path, exercises: list[Exercise]) -> set[str]:
    """The fingerprints of what a release hands out that a key may share a line with by chance
    (leaks.COPY_LINES): the grader's own source and the plugins' shipped code (their string
    literals too), the starters' text as it is (their docstrings too), the instructions and the
    hints."""
    code = [p for e in exercises if e.plugin is not None for p in plugins.shipped(e.plugin)]
    code += sorted((folder / "grader").rglob("*.py"))
    texts = [
        line
        for e in exercises
        for t in (e.instructions, *e.hints)
        for line in (t.id + "\n" + t.en).splitlines()
    ]
    return (
        leaks.held_lines(code)
        | leaks.stripped_lines(_starters(exercises))
        | leaks.fingerprints(texts)
    )


def given_text(folder: Path, exercises: list[Exercise]) -> str:
    """What the teacher hands out on purpose, for reference expressions: the starters, the
    instructions and hints, the grader's own source."""
    parts = [p.read_text(encoding="utf-8", errors="replace") for p in _handed_out(exercises)]
    parts += [t.id + "\n" + t.en for e in exercises for t in (e.instructions, *e.hints)]
    parts += [
        p.read_text(encoding="utf-8", errors="replace") for p in (folder / "grader").rglob("*.py")
    ]
    return "\n".join(parts)


def check_leaks(folder: Path, root: Path, exercises: list[Exercise]) -> None:
    """No answer line and no reference code in any file of the release, in any form the file
    holds it (leaks.units: as it is, a notebook's cells, string literals, base64, hex,
    compressed): else GraderError naming the file, the line and the form."""
    given = given_lines(folder, exercises)
    answers = leaks.answers(root / "solutions", given) if (root / "solutions").is_dir() else {}
    teachers = [
        e.plugin / plugins.TEACHER
        for e in exercises
        if e.plugin is not None and (e.plugin / plugins.TEACHER).is_file()
    ]
    lines = {**leaks.reference_code(exercises, teachers, given), **answers}
    found = leaks.scan(
        folder,
        lines,
        leaks.reference_expressions(exercises, given_text(folder, exercises)),
        shared=shared_lines(folder, exercises) & lines.keys(),
    )
    if found:
        shown = [
            f"{leak.file.relative_to(folder)}, {leak.where}: {leak.text!r} (from "
            f"{_source(leak.source, root)})"
            for leak in found[:SHOWN]
        ]
        more = f"; and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        raise GraderError(
            "release: the students' copy would contain lines of solutions/ or of "
            "reference code: " + "; ".join(shown) + more + ". Remove the answer "
            "from that file (a starter gives the scaffold, not the answer; a file the "
            "spec's `handout:` names ships as it is, encoded or not)"
        )


def _source(source, root: Path) -> str:
    if isinstance(source, Path) and source.is_relative_to(root):
        return str(source.relative_to(root))
    if isinstance(source, Path) and source.is_relative_to(PACKAGE.parent):
        return str(source.relative_to(PACKAGE.parent))
    return str(source)


def _run_check(
    folder: Path, submission: Path | None, python: str | None, what: str
) -> tuple[dict, str]:
    """The release's own `python -m grader check` (on its starters, or on `submission`), as a
    subprocess in the release: (its result JSON, its output)."""
    config = config_mod.load_or_default(
        folder / "config.yaml" if (folder / "config.yaml").is_file() else None
    )
    count = len(list((folder / "exercises").glob("*/exercise.yaml")))
    limit = count * (config.time_per_exercise + 2 * config.time_per_call + 30) + 120
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", COLUMNS="160")
    env.pop("PYTHONPATH", None)  # the release's grader, not the teacher's
    # What the run writes into the release (a student's progress file, grader.cli.hints) goes
    # after it: the release stays as built, its declared files and nothing else.
    built = set(folder.rglob("*"))
    try:
        return _run_in(folder, submission, python, what, env, limit)
    finally:
        for path in sorted(set(folder.rglob("*")) - built, reverse=True):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)


def _run_in(
    folder: Path, submission: Path | None, python: str | None, what: str, env: dict, limit: float
) -> tuple[dict, str]:
    with tempfile.TemporaryDirectory(prefix="grader-release-check-") as scratch:
        result_file = Path(scratch) / "result.json"
        command = [
            python or sys.executable,
            "-m",
            "grader",
            "check",
            "--json",
            str(result_file),
            "--lang",
            "en",
        ]
        if submission is not None:
            command += ["--submission", str(Path(submission).resolve())]
        try:
            proc = subprocess.run(
                command, cwd=folder, env=env, capture_output=True, text=True, timeout=limit
            )
        except subprocess.TimeoutExpired:
            raise GraderError(f"release: grading {what} took longer than {limit:g} s") from None
        output = (proc.stdout or "") + (proc.stderr or "")
        if (
            "Traceback (most recent call last)" in output
            or proc.returncode not in (0, 1)
            or not result_file.is_file()
        ):
            raise GraderError(
                f"release: `python -m grader check` in the release, grading "
                f"{what}, exited with {proc.returncode}:\n{output[-3000:]}"
            )
        return json.loads(result_file.read_text(encoding="utf-8")), output


def check_starters(folder: Path, exercises: list[Exercise], python: str | None = None) -> None:
    """Run the release's grader on its starters: exit 1, no traceback, every score 0."""
    data, _ = _run_check(folder, None, python, "the starters")
    problems = []
    for e in data["exercises"]:
        if e["status"] == "missing":
            problems.append(f"exercises/{e['id']}/: its starter was not found ({e['message']})")
            continue
        earned = e["score"] + e["bonus"]["score"]
        if earned > 0:
            checks = ", ".join(c["id"] for c in e["checks"] if c["points"] > 0)
            problems.append(
                f"exercises/{e['file']}: the untouched starter scores "
                f"{earned:g}/{e['max_score']:g} ({checks}); a student would earn "
                "points for doing nothing. Make the starter fail those checks (raise "
                "NotImplementedError where the student writes code), or make the "
                "checks stricter"
            )
    if problems:
        raise GraderError("release: " + "; ".join(problems[:SHOWN]))


def check_keys(folder: Path, solutions: Path, python: str | None = None) -> None:
    """Run the release's grader on the answer keys: every visible check passes, from the
    recorded examples alone."""
    data, _ = _run_check(folder, solutions, python, "the answer keys")
    problems = []
    for e in data["exercises"]:
        failed = [c["id"] for c in e["checks"] if c["status"] != "passed" and not c["bonus"]]
        if failed or e["score"] < e["max_score"]:
            problems.append(
                f"exercises/{e['id']}: the answer key fails {', '.join(failed)} "
                f"in the release ({e['score']:g}/{e['max_score']:g}): "
                + "; ".join(
                    str(c.get("message") or "")[:300]
                    for c in e["checks"]
                    if c["status"] != "passed"
                )[:600]
            )
    if problems:
        raise GraderError("release: " + "; ".join(problems[:SHOWN]))

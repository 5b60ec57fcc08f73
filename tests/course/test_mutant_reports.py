"""Every known mutant's report, as a student and a class's feedback see it: it names the
student's own files and lines only, never a file of the grader, an exercise's plugin, a
temporary folder or torch's sources; and at the default feedback level it shows no expression
of the answer key (grader.authoring.answerfree) (issue 43). Each mutant is graded once for both."""

from __future__ import annotations

import io
import json
import re
import shutil

import pytest
from conftest import EXERCISES, SOLUTIONS
from rich.console import Console

from grader.authoring import answerfree
from grader.grading.grade import grade
from grader.loader.config import Config
from grader.report import feedback, jsonout, terminal

IDS = sorted(p.name for p in (SOLUTIONS / "mutants").iterdir() if p.is_dir())
EACH = [pytest.param(i, marks=pytest.mark.xdist_group(f"mutant-reports-{i}")) for i in IDS]
"""Both tests of an exercise in one pytest-xdist worker, one after the other: its mutants are
graded once (`graded`), and the exercises spread over the workers."""
FEW = Config(examples=3, time_per_call=2.0, time_per_exercise=60.0)
"""Few examples: each mutant's first failure and its shrunk input are what is read."""

NOT_THE_STUDENTS = re.compile(
    r"\bgrader[/\\]\w|grader_plugins|exercises[/\\]\w+[/\\]plugin|\bplugin[/\\]\w+\.py"
    r"|\b(?:template|worker|probes)\.py\b|site-packages|dist-packages|\.cpp\b"
    r"|[/\\]tmp[/\\]|\bgrader-\w{4,}|\btorch[/\\]\w+[/\\]|Triggered internally"
)


def reports(result) -> str:
    """Everything a student or a class reads of a result: the terminal report in both
    languages, the Markdown feedback and the JSON (less its environment)."""
    out = []
    for lang in ("en", "id"):
        buf = io.StringIO()
        terminal.render(result, lang, Console(file=buf, width=200))
        out.append(buf.getvalue())
        out.append(feedback.text(result, lang))
        doc = jsonout.result_dict(result, lang)
        doc.pop("environment", None)
        doc.pop("format", None)
        out.append(json.dumps(doc, indent=1, ensure_ascii=False))
    return "\n".join(out)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, sandbox, exercises):
    """exercise id -> [(mutant name, its reports, its ExerciseResult, its path)], graded once
    per exercise on demand."""
    done: dict = {}
    root = tmp_path_factory.mktemp("mutant-reports")

    def of(exercise_id: str) -> list[tuple[str, str]]:
        if exercise_id not in done:
            rows = []
            for mutant in sorted((SOLUTIONS / "mutants" / exercise_id).glob("*.py")):
                sub = root / f"{exercise_id}-{mutant.stem}"
                shutil.rmtree(sub, ignore_errors=True)
                sub.mkdir()
                shutil.copyfile(mutant, sub / f"{exercise_id}.py")
                result = grade(
                    submission_dir=sub,
                    exercises=[exercises[exercise_id]],
                    config=FEW,
                    sandbox=sandbox,
                )
                rows.append((mutant.stem, reports(result), result.exercises[0], mutant))
            done[exercise_id] = rows
        return done[exercise_id]

    return of


@pytest.mark.parametrize("exercise_id", EACH)
def test_no_report_names_the_grader_a_plugin_or_a_temporary_folder(graded, exercise_id):
    assert (EXERCISES / exercise_id).is_dir()
    leaks = [
        f"{name}: {line.strip()[:160]}"
        for name, text, _, _ in graded(exercise_id)
        for line in text.splitlines()
        if NOT_THE_STUDENTS.search(line)
    ]
    assert leaks == []


@pytest.mark.parametrize("exercise_id", EACH)
def test_no_report_shows_an_expression_of_the_answer_key(graded, exercises, exercise_id):
    """The course's default level (config.yaml `feedback:`): messages say what is wrong and
    where; the formula or recipe stays in a hint the student asks for."""
    exercise = exercises[exercise_id]
    assert FEW.feedback_for(exercise).level == "mistake"
    keys = answerfree.answer_key(exercise, SOLUTIONS)
    assert keys, "the answer key has expressions to look for"
    found = [
        f"{name}: {leak.where}: `{leak.expression}` in {leak.text[:160]!r}"
        for name, _, result, path in graded(exercise_id)
        for leak in answerfree.leaks(result, keys, own=path.read_text())
    ]
    assert found == []

"""Grading a whole class: discover submissions, take a shard, grade in parallel, write outputs.

`run()` is the keyword-only API behind `python -m grader batch`; `write_outputs()` writes the
same files for a single run and for `merge` (grader/merge.py). Hidden checks run here, and their
inputs never reach an output: see conceal().
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from grader.batch import classroom, deadline
from grader.batch import files as batchfile
from grader.batch.files import Manifest
from grader.batch.pool import Lost, Setup, Task, grade_all
from grader.common import safetext
from grader.common.errors import GraderError
from grader.common.safetext import atomic_write
from grader.loader.config import Config
from grader.outcomes import classstats
from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult
from grader.report import csvout, feedback, gradescope, junit, markdown
from grader.report.classview import causes as causes_of
from grader.report.classview import lms, page, ranking
from grader.report.classview import similarity as alike
from grader.report.statuswords import late_words
from grader.specs.model import Exercise
from grader.submissions import answer, notebook
from grader.submissions import files as submission_mod

NAME_CHARS = 300
"""A submission's id keeps its folder's whole name (at most 255 bytes on any file system)."""
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
CSV, JUNIT, SUMMARY = "grades.csv", "junit.xml", "summary.md"
SIMILARITY, SOURCES = "similarity.html", "sources.json"
CORPUS_FORMAT = "grader-sources/1"


@dataclass
class Batch:
    """What a batch run produced."""

    results: list[SubmissionResult]
    """Sorted by submission id, hidden checks concealed."""
    manifest: Manifest
    lost: dict[str, Lost] = field(default_factory=dict)
    """Submissions the grader could not finish, by id (each has an error result too)."""
    seconds: float = 0.0
    overloaded: list[str] = field(default_factory=list)
    """Submissions with a check the machine was too busy to grade, graded again at the end of
    the run and still so (their scores are not final)."""
    regraded: list[str] = field(default_factory=list)
    """Submissions graded again at the end because the machine was overloaded the first time."""
    roster: object = None
    """With a roster and an output folder: the roster matched (grader.outcomes.roster.Match)."""


def discover(directory: Path) -> list[Task]:
    """Every subdirectory is one submission, named by its folder; dot-folders are skipped.

    The id is the folder's whole name made printable on one line (a name that is not UTF-8, or
    holds a newline or a terminal escape, is shown with \\xNN escapes); two names that read the
    same are told apart by a suffix. A link is listed (it scores nothing: locate() never follows it).
    A folder where `gh classroom clone student-repos` ran counts as the class it cloned."""
    directory = Path(directory)
    if not directory.is_dir():
        raise GraderError(f"submissions directory not found: {directory}")
    directory = classroom.class_folder(directory)
    entries = sorted(directory.iterdir(), key=lambda p: p.name)
    tasks, ids = [], set()
    for p in entries:
        if p.name.startswith(".") or not (p.is_dir() or p.is_symlink()):
            continue
        base = safetext.name(p.name, NAME_CHARS)
        sid, n = base, 1
        while sid in ids:
            n += 1
            sid = f"{base}~{n}"
        ids.add(sid)
        tasks.append(Task(sid, p))
    if not tasks:
        files = [safetext.name(p.name) for p in entries if p.is_file() and p.suffix == ".py"]
        hint = (
            f"; it holds {', '.join(files[:3])}{', ...' if len(files) > 3 else ''}, so it "
            f"looks like one submission: grade it with `python -m grader check "
            f"--submission {directory}`"
            if files
            else "; put each student's files in a folder of their own (DIR/student007/...)"
        )
        raise GraderError(
            f"no submissions in {directory}: batch grades every subfolder, and there is none{hint}"
        )
    return tasks


def parse_shard(text: str) -> tuple[int, int]:
    """'K/N' with 1 <= K <= N."""
    match = _SHARD.match(text or "")
    if not match:
        raise GraderError(f"--shard {text!r}: expected K/N such as 2/4 (shard 2 of 4)")
    k, n = int(match.group(1)), int(match.group(2))
    if not 1 <= k <= n:
        raise GraderError(f"--shard {text!r}: K must be between 1 and N, e.g. 1/{max(n, 1)}")
    return k, n


def take_shard(tasks: list[Task], shard: tuple[int, int] | None) -> list[Task]:
    """Every N-th submission by sorted name, starting at the K-th: shards are disjoint,
    cover the class, and differ in size by at most one."""
    if shard is None:
        return list(tasks)
    k, n = shard
    return sorted(tasks, key=lambda t: t.id)[k - 1 :: n]


def fingerprints(
    task: Task, exercises: list[Exercise], hashed: dict[str, str] | None = None
) -> dict[str, str | None]:
    """A short hash of each exercise's answer (grader.submissions.answer), so a regrade can tell
    a changed file apart; an exercise whose files are all starters as released has its
    starter's hash (the manifest then calls it untouched; `hashed`: starters(exercises), read
    once for a class), one with none has None."""
    out: dict[str, str | None] = {}
    hashed = starters(exercises) if hashed is None else hashed
    for e in exercises:
        choice = answer.choose(task.path, e)
        if not choice.found:
            out[e.id] = None
        elif choice.untouched and e.id in hashed:
            out[e.id] = hashed[e.id]
        else:
            out[e.id] = _digest([choice.path] if choice.path else list(choice.clash))
    return out


def starters(exercises: list[Exercise]) -> dict[str, str]:
    """The hash of each exercise's starter as handed out (exercises/<id>/<id>.py), hashed as
    fingerprints() hashes a submission's file, so a summary can tell an untouched one apart."""
    out = {}
    for e in exercises:
        path = e.path.parent / e.file
        if path.is_file():
            out[e.id] = _digest([path])
    return out


def _digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        try:
            digest.update(submission_mod.read_capped(path, notebook.MAX_NOTEBOOK_BYTES))
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()[:16]


def conceal(result: SubmissionResult) -> SubmissionResult:
    """Hidden checks keep status, points and title; their inputs, values and tracebacks go."""
    exercises = [
        replace(e, checks=[_conceal_check(c) for c in e.checks]) for e in result.exercises
    ]
    return replace(result, exercises=exercises)


def _conceal_check(c: CheckResult) -> CheckResult:
    if not c.hidden or c.status == "passed":
        return c
    from grader.checks.messages import both  # imports torch, which a merge job need not install

    message = both(
        "Pemeriksaan tersembunyi ({k}) tidak lulus ({s}): {t}. Inputnya tidak "
        "ditampilkan; pelajari lagi ide pemeriksaan ini.",
        "Hidden check ({k}) did not pass ({s}): {t}. Its inputs are not shown; "
        "revisit the idea it checks.",
        k=c.kind,
        s=c.status,
        t=c.title,
    )
    # The cause too: it holds names the worker sent (an exception's type, a forbidden API).
    return replace(
        c,
        message=message,
        counterexample=None,
        traceback=[],
        output=None,
        output_cut=0,
        cause=None,
        mistake=None,
        mistake_title=None,
    )


def unfinished(
    task: Task, lost: Lost, exercises: list[Exercise], config: Config
) -> SubmissionResult:
    """The result of a submission the grader could not finish: every check an error, 0 points,
    with a message that says it is the grader's fault."""
    from grader.checks.messages import both
    from grader.grading.grade import (
        environment,  # imports torch, which a merge job need not install
    )

    message = both(
        "Kiriman ini belum selesai dinilai: {d}. Ini kesalahan grader, bukan "
        "salahmu; pengajar akan menilainya ulang.",
        "This submission could not be graded: {d}. This is the grader's fault, "
        "not yours; your teacher will regrade it.",
        d=lost.detail,
    )
    rows = [
        ExerciseResult(
            id=e.id,
            title=e.title,
            status="error",
            message=message,
            checks=[
                CheckResult(
                    id=c.id,
                    title=c.title,
                    kind=c.kind,
                    status="error",
                    points=0.0,
                    max_points=c.points,
                    hidden=c.hidden,
                    bonus=c.bonus,
                )
                for c in e.checks
            ],
        )
        for e in exercises
    ]
    return SubmissionResult(
        submission=task.id, exercises=rows, environment=environment(config, exercises)
    )


def groups(exercises: list[Exercise], config: Config, count: int) -> list[tuple[str, ...]]:
    """The exercises split into `count` parts of about the same number of calls (the longest
    first, each to the lightest part so far), each in the course's order: what one grading
    process grades of every submission (grader.batch.pool.grade_all)."""
    from grader.grading.grade import expected_calls

    count = max(1, min(count, len(exercises)))
    load, members = [0] * count, [set() for _ in range(count)]
    for e in sorted(exercises, key=lambda e: -expected_calls(e, config, True)):
        i = load.index(min(load))
        load[i] += expected_calls(e, config, True)
        members[i].add(e.id)
    return [tuple(e.id for e in exercises if e.id in m) for m in members]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def submission_limit(exercises: list[Exercise], config: Config) -> float:
    """Seconds one submission may take in all: its exercises' limits, plus a start-up margin.
    Only a grader fault reaches it, since each exercise already stops at its own limit."""
    return len(exercises) * (config.time_per_exercise + 2 * config.time_per_call + 10) + 120


def run(
    *,
    submissions_dir: Path,
    exercises: list[Exercise],
    config: Config,
    lang: str,
    root: Path,
    jobs: int | None = None,
    shard: tuple[int, int] | None = None,
    out: Path | None = None,
    on_result=None,
    target=None,
    due: datetime | deadline.Deadlines | None = None,
    policy: deadline.Policy | None = None,
    record=None,
    roster=None,
) -> Batch:
    """Grade every submission of a class (or one shard of it) with hidden checks included.

    on_result(task, result, lost) is called as each submission finishes (lost is None unless
    the grader failed). With out, the outputs are written there (see write_outputs). With due
    (a deadline), a submission that is a git repository is graded as of the commit the late
    policy chooses (grader.batch.deadline), from a copy; its result says how late it is.
    record(results, manifest): called before the outputs are written (a gradebook records the
    run), returning what changed since each submission's previous run (report.html shows it).
    roster: a grader.outcomes.roster.Roster joined into the outputs (see write_outputs).
    """
    with tempfile.TemporaryDirectory(prefix="grader-deadline-") as copies:
        return _run(
            submissions_dir=submissions_dir,
            exercises=exercises,
            config=config,
            lang=lang,
            root=root,
            jobs=jobs,
            shard=shard,
            out=out,
            on_result=on_result,
            target=target,
            due=due,
            policy=policy or deadline.Policy(),
            copies=Path(copies),
            record=record,
            roster=roster,
        )


def as_of(
    task: Task,
    due: deadline.Deadlines,
    policy: deadline.Policy,
    exercises: list[Exercise],
    copies: Path,
    lateness: dict,
) -> Task:
    """The task to grade against the deadlines: where the submission is a git repository with
    commits, a copy of the commit the policy chooses for the latest deadline, each exercise due
    earlier taken from its own deadline's commit (lateness[task.id]: exercise id -> Lateness);
    else the task as it is."""
    if task.path.is_symlink() or not deadline.is_repository(task.path):
        return task
    times = {e.id: due.of(e.id) for e in exercises}
    if all(t is None for t in times.values()):
        return task
    # A fresh folder of its own: nothing another repository left is ever graded with it.
    folder = Path(tempfile.mkdtemp(prefix="repository-", dir=copies))
    tree = folder / "tree"
    try:
        with deadline.Repository(task.path) as repo:
            judged = {}
            for when in {t for t in times.values() if t is not None}:
                late = deadline.judge(repo, when, policy)
                if late is None:
                    raise deadline.Unreadable("it has no commit")
                judged[when] = late
            # Exercises without a deadline are graded as the repository stands (its latest commit).
            base = (
                deadline.history(repo)[0][0]
                if None in times.values()
                else judged[max(judged)].commit
            )
            deadline.export(repo, base, tree)
            for e in exercises:
                when = times[e.id]
                if when is not None and judged[when].commit != base:
                    other = folder / judged[when].commit
                    if not other.exists():
                        deadline.export(repo, judged[when].commit, other)
                    _take_exercise(e, other, tree)
    except Exception as error:  # graded 0 with the reason, never from its working tree
        why = (
            str(error)
            if isinstance(error, deadline.Unreadable)
            else f"{type(error).__name__}: {error}"
        )
        shutil.rmtree(folder, ignore_errors=True)
        tree.mkdir(parents=True)
        lateness[task.id] = dict.fromkeys((e.id for e in exercises), deadline.Lateness.unread(why))
        return Task(task.id, tree)
    lateness[task.id] = {e.id: judged[t] for e in exercises if (t := times[e.id]) is not None}
    return Task(task.id, tree)


def _take_exercise(exercise: Exercise, source: Path, tree: Path) -> None:
    """The exercise's file(s) in `tree` as they are in `source` (none there: none in tree)."""
    for path in notebook.locate(tree, exercise.file):
        path.unlink()
    for path in notebook.locate(source, exercise.file):
        target = tree / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def late_record(per: dict) -> dict:
    """SubmissionResult.late from each exercise's Lateness: one deadline's as it is; several
    deadlines' under `exercises`, beside the latest deadline's commit and the most lateness."""
    distinct = {id(v): v for v in per.values()}
    if len(distinct) == 1:
        return next(iter(distinct.values())).as_dict()
    latest = max(distinct.values(), key=lambda v: datetime.fromisoformat(v.committed))
    afters = [v.after for v in distinct.values() if v.after is not None]
    return {
        **latest.as_dict(),
        "later_commits": max(v.later for v in distinct.values()),
        "late_seconds": max(afters) if afters else None,
        "graded_late": any(v.graded_late for v in distinct.values()),
        "penalty": 0.0,
        "exercises": {k: v.as_dict() for k, v in sorted(per.items())},
    }


def _run(
    *,
    submissions_dir,
    exercises,
    config,
    lang,
    root,
    jobs,
    shard,
    out,
    on_result,
    target,
    due,
    policy,
    copies,
    record,
    roster,
) -> Batch:
    started = time.monotonic()
    if out is not None:
        _apart(Path(submissions_dir), Path(out))
    tasks = take_shard(discover(submissions_dir), shard)
    lateness: dict[str, dict[str, deadline.Lateness]] = {}
    if isinstance(due, datetime):
        due = deadline.Deadlines(default=due)
    if due is not None:
        tasks = [as_of(t, due, policy, exercises, copies, lateness) for t in tasks]
    # batch stops shrinking a failing check at the config's budget (the verdict is the same)
    bounded = replace(config, bounded_shrink=True)
    setup = Setup(spec_paths=tuple(e.path for e in exercises), root=root, config=bounded)
    extra = {"target": target} if target is not None else {}
    results: dict[str, SubmissionResult] = {}
    lost: dict[str, Lost] = {}

    def graded(chosen: list[Task], jobs: int):
        for task, outcome in grade_all(
            chosen,
            jobs=jobs,
            setup=setup,
            limit=submission_limit(exercises, config),
            groups=groups(exercises, config, min(jobs, len(chosen) * len(exercises))),
            order=tuple(e.id for e in exercises),
            **extra,
        ):
            lost.pop(task.id, None)
            if isinstance(outcome, Lost):
                lost[task.id] = outcome
                outcome = unfinished(task, outcome, exercises, config)
            # The id discover() chose names the result, told apart from every other's.
            late = late_record(lateness[task.id]) if lateness.get(task.id) else None
            outcome = replace(outcome, submission=task.id, late=late)
            if late and late.get("unreadable"):
                outcome = deadline.unread(outcome, late["unreadable"])
            results[task.id] = safetext.scrub(conceal(outcome))
            yield task

    for task in graded(tasks, jobs or default_jobs()):
        if on_result:
            on_result(task, results[task.id], lost.get(task.id))
    # A check the machine was too busy to grade is no verdict: those submissions are graded
    # once more at the end, one at a time, when the class's own load is gone.
    again = [t for t in tasks if classstats.overloaded(results[t.id])]
    for _ in graded(again, 1):
        pass
    handed_out = starters(exercises)
    manifest = Manifest(
        language=lang,
        exercises=[e.id for e in exercises],
        files={t.id: fingerprints(t, exercises, handed_out) for t in tasks},
        shard=shard,
        starters=handed_out,
    )
    batch = Batch(
        results=[results[k] for k in sorted(results)],
        manifest=manifest,
        lost=lost,
        seconds=time.monotonic() - started,
        overloaded=[t.id for t in again if classstats.overloaded(results[t.id])],
        regraded=[t.id for t in again],
    )
    changes = record(batch.results, manifest) if record is not None else None
    if out is not None:
        code = corpus(tasks, exercises, Path(root))
        batch.roster = write_outputs(
            Path(out),
            batch.results,
            manifest,
            code=code,
            changes=changes,
            roster=roster,
            deadline=due.default if due is not None else None,
        )
    return batch


def corpus(tasks: list[Task], exercises: list[Exercise], root: Path) -> dict:
    """What the similarity report compares (OUT/sources.json, so that merge can compare the
    shards' submissions with each other): each submission's code per exercise (a notebook's
    code cells), each starter, and the course's own answers (solutions/: the key and the
    correct variants, where the teacher's repository has them), whose lines every answer may
    share."""
    sources: dict[str, dict[str, str]] = {}
    for task in tasks:
        mine = sources.setdefault(task.id, {})
        for e in exercises:
            graded = answer.choose(task.path, e)
            if graded.path is not None and not graded.untouched:
                try:
                    # a notebook's code without the grader cells every notebook holds
                    mine[e.id] = notebook.load(graded.path)[0]
                except (
                    OSError,
                    ValueError,
                    submission_mod.SourceError,
                ):  # its own error is graded
                    continue
    starters, shared = {}, {}
    for e in exercises:
        starter = e.path.parent / e.file
        if starter.is_file():
            starters[e.id] = starter.read_text(encoding="utf-8", errors="replace")
        answers = [root / "solutions" / e.file]
        answers += sorted((root / "solutions" / "variants" / e.id).glob("*.py"))
        shared[e.id] = [
            a.read_text(encoding="utf-8", errors="replace") for a in answers if a.is_file()
        ]
    return {
        "format": CORPUS_FORMAT,
        "submissions": sources,
        "starters": starters,
        "shared": shared,
    }


def similar(code: dict):
    """(pairs, sources, ranked) of the similarity report over a corpus (see corpus()): the
    per-exercise pairs of the ranked ones, the sources, and the pairs ranked across the course
    (ranking.rank()); None where they cannot be computed (copydetect missing, a library's
    failure on odd input): that costs the report, never the grades."""
    try:
        sources = code["submissions"]
        ranked = ranking.rank(sources, code["starters"], code["shared"])
        listed = {(p.a, p.b, s.exercise) for p in ranked for s in p.detail}
        pairs = [
            p
            for p in alike.compute(sources, code["starters"], code["shared"])
            if (p.a, p.b, p.exercise) in listed
        ]
        return pairs, sources, ranked
    except Exception:
        return None


def _apart(submissions: Path, out: Path) -> None:
    """The output folder is rewritten in part, and a folder in DIR would be a submission."""
    a, b = submissions.resolve(), out.resolve()
    if a == b or a.is_relative_to(b) or b.is_relative_to(a):
        raise GraderError(
            f"--out {out} and the submissions folder {submissions} overlap; "
            "write the outputs to a folder outside it, such as out/"
        )


def _names(results: list[SubmissionResult], people) -> dict[str, str]:
    """Each submission's student as report.html names them: the roster's name, else the login."""
    slug = lms.infer_assignment([r.submission for r in results])
    out = {}
    for r in results:
        person = (people or {}).get(r.submission)
        out[r.submission] = (
            person.name if person and person.name else lms.student(r.submission, slug)
        )
    return out


def write_outputs(
    out: Path,
    results: list[SubmissionResult],
    manifest: Manifest,
    code: dict | None = None,
    changes=None,
    roster=None,
    deadline: datetime | None = None,
):
    """results.json, batch.json, grades.csv, junit.xml, summary.md, report.html (the class at a
    glance), lms/ (grades for Canvas, Moodle and Google Classroom), similarity.html (pairs of
    submissions to look at), sources.json (what it compared, for merge), gradescope/<id>/ and
    feedback/<id>.md. code: the corpus the similarity report compares (see corpus()); None:
    no similarity report. roster (grader.outcomes.roster.Roster): joined into results.json,
    grades.csv, summary.md, report.html and the LMS files; returns its Match (None without).
    deadline: the course's deadline, drawn on report.html's timeline of commits."""
    out.mkdir(parents=True, exist_ok=True)
    lang = manifest.language
    match = lms.people(results, roster) if roster is not None else None
    people = match.people if match is not None else None
    similarity = similar(code) if code is not None else None
    if code is not None:
        atomic_write(out / SOURCES, json.dumps(code, sort_keys=True, ensure_ascii=True) + "\n")
    stats = classstats.compute(results, attempt=manifest.attempt)
    causes = causes_of.count(results, manifest.attempt)
    batchfile.write(out, results, manifest, people)
    csvout.write(out / CSV, results, manifest.exercises, people)
    junit.write(out / JUNIT, results, lang)
    markdown.write(
        out / SUMMARY,
        stats,
        lang,
        course=similarity[2] if similarity is not None else None,
        roster=match,
        causes=causes,
    )
    deadline_set = any(r.late is not None for r in results)
    page.write(
        out / page.FILE,
        results,
        stats,
        lang,
        late=[(sid, late_words(late, lang)) for sid, late in stats.late] if deadline_set else None,
        changes=changes,
        course=similarity[2] if similarity is not None else None,
        names=_names(results, people),
        deadline=deadline,
        causes=causes,
    )
    if similarity is not None:
        alike.write_html(
            out / SIMILARITY, similarity[0], similarity[1], lang, course=similarity[2]
        )
    lms.write_all(out, results, manifest.exercises, lang, people=people)
    gradescope.write(out, results, lang)
    feedback.write(out, results, lang, attempt=manifest.attempt)
    return match

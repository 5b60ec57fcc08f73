"""Deadlines from a repository's history (grader.batch.deadline): the commit graded, lateness,
the late policy, and the student's repository left untouched."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from grader.batch import deadline
from grader.common.errors import GraderError

DEADLINE = deadline.parse("2026-12-10T23:59+07:00")


def commit(repo: Path, files: dict[str, str], when: str) -> str:
    """Write files and commit them with committer and author date `when` (ISO 8601)."""
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    env = dict(
        os.environ,
        GIT_COMMITTER_DATE=when,
        GIT_AUTHOR_DATE=when,
        GIT_AUTHOR_NAME="ana",
        GIT_AUTHOR_EMAIL="ana@example.org",
        GIT_COMMITTER_NAME="ana",
        GIT_COMMITTER_EMAIL="ana@example.org",
    )
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", when], check=True, env=env)
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def repository(tmp_path: Path, name: str = "ana") -> Path:
    repo = tmp_path / name
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


@pytest.fixture
def late_repo(tmp_path):
    """Two commits before the deadline, two after (the last 3 h 10 min after)."""
    repo = repository(tmp_path)
    commit(repo, {"a.py": "x = 1\n"}, "2026-12-09T10:00:00+07:00")
    before = commit(repo, {"a.py": "x = 2\n"}, "2026-12-10T23:58:00+07:00")
    commit(repo, {"a.py": "x = 3\n"}, "2026-12-11T01:00:00+07:00")
    latest = commit(repo, {"a.py": "x = 4\n", "b.py": "y = 1\n"}, "2026-12-11T03:09:00+07:00")
    return repo, before, latest


def test_the_last_commit_before_the_deadline_is_graded_and_the_rest_counted(late_repo, tmp_path):
    repo, before, _ = late_repo
    late = deadline.judge(repo, DEADLINE)
    assert late is not None and late.commit == before and not late.graded_late
    assert late.later == 2 and late.after == pytest.approx(3 * 3600 + 10 * 60)
    assert "late: 2 commit(s), 3 h 10 min after the deadline, not graded" in late.words("en")
    assert "terlambat: 2 commit" in late.words("id") and "tidak dinilai" in late.words("id")
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout
    deadline.export(repo, late.commit, tmp_path / "copy")
    assert (tmp_path / "copy" / "a.py").read_text() == "x = 2\n"
    assert not (tmp_path / "copy" / "b.py").exists()
    # the student's repository is as it was: same HEAD, same working tree, nothing staged
    assert (repo / "a.py").read_text() == "x = 4\n"
    after = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True
    )
    assert (
        after.stdout == ""
        and head
        == subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout
    )


def test_policies_penalty_and_latest_grade_the_latest_commit(late_repo):
    repo, _, latest = late_repo
    penalty = deadline.judge(repo, DEADLINE, deadline.Policy("penalty", per_day=0.1))
    assert penalty.commit == latest and penalty.graded_late and penalty.penalty == 0.1
    assert "late penalty 10%" in penalty.words("en") and "not graded" not in penalty.words("en")
    flagged = deadline.judge(repo, DEADLINE, deadline.Policy("latest"))
    assert flagged.commit == latest and flagged.graded_late and flagged.penalty == 0.0
    later = deadline.judge(
        repo, deadline.parse("2026-12-08T23:59+07:00"), deadline.Policy("penalty", per_day=0.5)
    )
    assert later.penalty == 1.0  # three days late at 50% a day: capped at the whole score


def test_with_nothing_before_the_deadline_the_latest_is_graded_late(tmp_path):
    repo = repository(tmp_path)
    only = commit(repo, {"a.py": "x = 1\n"}, "2026-12-12T09:00:00+07:00")
    late = deadline.judge(repo, DEADLINE)
    assert late.commit == only and late.graded_late and late.later == 1


def test_not_a_repository_and_an_empty_one(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert not deadline.is_repository(plain)
    empty = repository(tmp_path, "empty")
    assert deadline.is_repository(empty)
    assert deadline.judge(empty, DEADLINE) is None  # batch grades it 0: "it has no commit"


def test_a_deadline_needs_its_offset():
    with pytest.raises(GraderError, match="UTC offset"):
        deadline.parse("2026-12-10T23:59")
    with pytest.raises(GraderError, match="such as"):
        deadline.parse("Friday")
    assert deadline.parse("2026-12-10T23:59Z").utcoffset().total_seconds() == 0


ZEROS = (
    "import torch\n\n\ndef df(x):\n    return torch.zeros_like(x)\n\n\n"
    "def grad_g(x, y):\n    return torch.zeros_like(x), torch.zeros_like(y)\n\n\n"
    "def mlp_grads(x, y, W1, b1, W2, b2):\n"
    "    return {k: torch.zeros_like(v) for k, v in dict(W1=W1, b1=b1, W2=W2, b2=b2).items()}\n\n\n"
    "def autograd_df(x):\n    return torch.zeros_like(x)\n"
)


def test_a_class_of_repositories_graded_as_of_the_deadline(tmp_path, exercises):
    """ana's answer was in on time and broken after; budi's came after; cita's folder is no
    repository. The outputs say which commit was graded and how late the rest is."""
    import csv
    import json

    from conftest import ROOT, SOLUTIONS

    from grader.batch import run as batch
    from grader.loader.config import Config

    key = (SOLUTIONS / "manual_gradient.py").read_text()
    klass = tmp_path / "class"
    klass.mkdir()
    ana = repository(klass, "ana")
    on_time = commit(ana, {"manual_gradient.py": key}, "2026-12-10T20:00:00+07:00")
    commit(ana, {"manual_gradient.py": ZEROS}, "2026-12-11T09:30:00+07:00")
    budi = repository(klass, "budi")
    commit(budi, {"manual_gradient.py": ZEROS}, "2026-12-09T20:00:00+07:00")
    latest = commit(budi, {"manual_gradient.py": key}, "2026-12-11T20:00:00+07:00")
    (klass / "cita").mkdir()
    (klass / "cita" / "manual_gradient.py").write_text(key)
    config = Config(examples=8, time_per_call=15.0, time_per_exercise=120.0)

    def graded(policy, out):
        done = batch.run(
            submissions_dir=klass,
            exercises=[exercises["manual_gradient"]],
            config=config,
            lang="en",
            root=ROOT,
            jobs=2,
            out=out,
            due=DEADLINE,
            policy=policy,
        )
        return {r.submission: r for r in done.results}

    out = tmp_path / "none"
    got = graded(deadline.Policy("none"), out)
    assert got["ana"].score == got["ana"].max_score and got["ana"].late["commit"] == on_time
    assert got["ana"].late["later_commits"] == 1 and not got["ana"].late["graded_late"]
    assert got["budi"].score < got["budi"].max_score / 2 and got["budi"].late["later_commits"] == 1
    assert got["cita"].late is None and got["cita"].score == got["cita"].max_score
    data = {
        d["submission"]: d for d in json.loads((out / "results.json").read_text())["submissions"]
    }
    assert data["ana"]["late"]["commit"] == on_time and "late" not in data["cita"]
    with open(out / "grades.csv", newline="") as f:
        rows = {r["submission"]: r for r in csv.DictReader(f)}
    assert rows["ana"]["commit"] == on_time and rows["ana"]["late_commits"] == "1"
    assert rows["cita"]["commit"] == ""
    feedback = (out / "feedback" / "ana.md").read_text()
    assert f"graded commit {on_time[:10]}" in feedback and "late: 1 commit(s)" in feedback
    summary = (out / "summary.md").read_text()
    assert "Late submissions" in summary and "`ana`" in summary and "`cita`" not in summary
    # the class at a glance, the LMS exports and the similarity page are written beside
    page = (out / "report.html").read_text()
    assert "ana" in page and "late: 1 commit(s)" in page and "<img" in page
    assert (out / "lms" / "canvas.csv").read_text().startswith("Student,")
    assert (out / "similarity.html").is_file()
    # the students' repositories are untouched
    assert (ana / "manual_gradient.py").read_text() == ZEROS

    got = graded(deadline.Policy("penalty", per_day=0.1), tmp_path / "penalty")
    budi_late = got["budi"]
    assert budi_late.late["commit"] == latest and budi_late.late["penalty"] == 0.1
    assert budi_late.raw_score == budi_late.max_score
    assert budi_late.score == pytest.approx(0.9 * budi_late.max_score)
    penalty_csv = (tmp_path / "penalty" / "grades.csv").read_text()
    assert "late_penalty" in penalty_csv


def test_exercises_due_on_other_days_are_each_graded_as_of_their_own(tmp_path, exercises):
    """manual_gradient is due on the 10th, custom_sigmoid on the 17th; both are finished on the
    12th: with a penalty policy, manual_gradient loses 2 days' share, custom_sigmoid nothing."""
    from conftest import ROOT, SOLUTIONS

    from grader.batch import run as batch
    from grader.loader.config import Config

    klass = tmp_path / "class"
    klass.mkdir()
    repo = repository(klass, "ana")
    key, sigmoid = (SOLUTIONS / "manual_gradient.py").read_text(), SOLUTIONS / "custom_sigmoid.py"
    first = commit(
        repo,
        {"manual_gradient.py": ZEROS, "custom_sigmoid.py": "import torch\n"},
        "2026-12-09T10:00:00+07:00",
    )
    second = commit(
        repo,
        {"manual_gradient.py": key, "custom_sigmoid.py": sigmoid.read_text()},
        "2026-12-12T10:00:00+07:00",
    )
    due = deadline.Deadlines.read(
        {"manual_gradient": "2026-12-10T23:59+07:00", "default": "2026-12-17T23:59+07:00"}
    )
    done = batch.run(
        submissions_dir=klass,
        exercises=[exercises["manual_gradient"], exercises["custom_sigmoid"]],
        config=Config(examples=8, time_per_call=15.0, time_per_exercise=120.0),
        lang="en",
        root=ROOT,
        jobs=1,
        due=due,
        policy=deadline.Policy("penalty", per_day=0.25),
    )
    ana = done.results[0]
    assert all(e.score == e.max_score for e in ana.exercises), [e.message for e in ana.exercises]
    per = ana.late["exercises"]
    assert per["manual_gradient"]["commit"] == second  # penalty: the latest, 2 days late
    assert per["manual_gradient"]["penalty"] == 0.5 and per["custom_sigmoid"]["penalty"] == 0.0
    assert per["custom_sigmoid"]["commit"] == second and first != second
    by = {e.id: e for e in ana.exercises}
    assert ana.score == pytest.approx(
        0.5 * by["manual_gradient"].score + by["custom_sigmoid"].score
    )
    assert ana.late["later_commits"] == 1


def test_exercises_due_on_other_days_without_a_penalty(tmp_path, exercises):
    from conftest import ROOT, SOLUTIONS

    from grader.batch import run as batch
    from grader.loader.config import Config

    klass = tmp_path / "class"
    klass.mkdir()
    repo = repository(klass, "ana")
    key = (SOLUTIONS / "manual_gradient.py").read_text()
    sigmoid = (SOLUTIONS / "custom_sigmoid.py").read_text()
    first = commit(
        repo,
        {"manual_gradient.py": key, "custom_sigmoid.py": "import torch\n"},
        "2026-12-09T10:00:00+07:00",
    )
    second = commit(
        repo,
        {"manual_gradient.py": ZEROS, "custom_sigmoid.py": sigmoid},
        "2026-12-12T10:00:00+07:00",
    )
    due = deadline.Deadlines.read(
        {"manual_gradient": "2026-12-10T23:59+07:00", "default": "2026-12-17T23:59+07:00"}
    )
    done = batch.run(
        submissions_dir=klass,
        exercises=[exercises["manual_gradient"], exercises["custom_sigmoid"]],
        config=Config(examples=8, time_per_call=15.0, time_per_exercise=120.0),
        lang="en",
        root=ROOT,
        jobs=1,
        due=due,
    )
    ana = done.results[0]
    by = {e.id: e for e in ana.exercises}
    # manual_gradient as of the 10th (the key), custom_sigmoid as of the 17th (its answer)
    assert by["manual_gradient"].score == by["manual_gradient"].max_score
    assert by["custom_sigmoid"].score == by["custom_sigmoid"].max_score
    assert ana.late["exercises"]["manual_gradient"]["commit"] == first
    assert ana.late["exercises"]["custom_sigmoid"]["commit"] == second
    assert (repo / "manual_gradient.py").read_text() == ZEROS  # the repository untouched
    from grader.report.statuswords import late_words

    words = late_words(ana.late, "en")
    assert f"manual_gradient: graded commit {first[:10]}" in words and "late: 1 commit(s)" in words

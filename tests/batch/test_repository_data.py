"""A student's repository is data (grader.batch.gitread, gitobjects): hostile repositories,
built here with git, graded with `batch --deadline`. Nothing in one runs in the grader, nothing
it names is followed, one that cannot be read is graded 0 with its reason, and a classmate's
grade never changes."""

from __future__ import annotations

import json
import os
import subprocess
import tracemalloc
from pathlib import Path

import pytest
from test_deadline import DEADLINE, ZEROS, commit, repository

from grader.batch import deadline, gitobjects, gitread

ON_TIME = "2026-12-10T20:00:00+07:00"
LATE = "2026-12-11T09:30:00+07:00"
ZERO_BYTES = 96 * 2**20


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=data, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


def stage(repo: Path, name: str, blob: str, mode: str = "100644") -> None:
    """A name in the index only (the file system may refuse it)."""
    git(repo, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{name}")


def dated(repo: Path, when: str, message: str = "x") -> str:
    env = dict(
        os.environ,
        GIT_COMMITTER_DATE=when,
        GIT_AUTHOR_DATE=when,
        GIT_AUTHOR_NAME="s",
        GIT_AUTHOR_EMAIL="s@example.org",
        GIT_COMMITTER_NAME="s",
        GIT_COMMITTER_EMAIL="s@example.org",
    )
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", message], check=True, env=env)
    return git(repo, "rev-parse", "HEAD")


def zeros(repo: Path) -> str:
    """A blob of ZERO_BYTES zeros, written without holding it in this process."""
    with subprocess.Popen(
        ["git", "-C", str(repo), "hash-object", "-w", "--stdin"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as p:
        assert p.stdin is not None and p.stdout is not None
        block = bytes(2**20)
        for _ in range(ZERO_BYTES // len(block)):
            p.stdin.write(block)
        p.stdin.close()
        return p.stdout.read().decode().strip()


def key() -> str:
    from conftest import SOLUTIONS

    return (SOLUTIONS / "manual_gradient.py").read_text()


def honest(klass: Path, name: str) -> str:
    repo = repository(klass, name)
    return commit(repo, {"manual_gradient.py": key()}, ON_TIME)


def smudging(klass: Path, marker: Path) -> Path:
    """Filters, textconv, hooks and an fsmonitor in the repository's own config, named by its
    .gitattributes (set after its commit): each would create `marker` if git obeyed it."""
    repo = repository(klass, "dina")
    attributes = b"* filter=evil diff=evil ident eol=crlf\n"
    text = key() + "\n# $Id$\n"
    for name, data in ((".gitattributes", attributes), ("manual_gradient.py", text.encode())):
        (repo / name).write_bytes(data)
        stage(repo, name, git(repo, "hash-object", "-w", "--no-filters", "--stdin", data=data))
    dated(repo, ON_TIME)
    touch = f"touch {marker}"
    for key_, value in {
        "filter.evil.smudge": touch,
        "filter.evil.clean": touch,
        "filter.evil.process": touch,
        "filter.evil.required": "true",
        "diff.evil.textconv": touch,
        "core.fsmonitor": touch,
        "core.hooksPath": ".git/hooks",
        "core.autocrlf": "true",
    }.items():
        git(repo, "config", key_, value)
    for hook in ("post-checkout", "pre-commit", "post-index-change", "reference-transaction"):
        (repo / ".git" / "hooks" / hook).write_text(f"#!/bin/sh\n{touch}\n")
        (repo / ".git" / "hooks" / hook).chmod(0o755)
    assert not marker.exists(), "building the repository ran the filter"
    return repo


def test_a_hostile_class_graded_by_deadline(tmp_path, exercises):
    """01_broken's on-time commit holds the key and a 300-byte name (valid in git, refused by
    the file system); 02_classmate, next in name order, has the key; 03_copycat's `.git` is a
    file naming 02_classmate's; 04_linked's is a link to it; 05_shared borrows 02's objects
    (alternates); dina's config defines filters; eve's latest commit is dated in year 10000,
    fay's on-time commit has an offset of +2400; gus names a 96 MiB blob of zeros 48 times as
    data, hal as .py files."""
    from conftest import ROOT

    from grader.batch import run as batch
    from grader.loader.config import Config

    klass, marker = tmp_path / "class", tmp_path / "MARKER"
    klass.mkdir()
    broken = repository(klass, "01_broken")
    commit(broken, {"exercises/zz/manual_gradient.py": key()}, "2026-12-10T19:00:00+07:00")
    stage(
        broken,
        "exercises/zz/" + "n" * 297 + ".py",
        git(broken, "hash-object", "-w", "--stdin", data=b"x = 1\n"),
    )
    bad = dated(broken, ON_TIME)
    commit(broken, {"exercises/zz/manual_gradient.py": ZEROS}, LATE)
    mate = honest(klass, "02_classmate")
    (klass / "03_copycat").mkdir()
    (klass / "03_copycat" / ".git").write_text("gitdir: ../02_classmate/.git\n")
    (klass / "03_copycat" / "manual_gradient.py").write_text(key())
    (klass / "04_linked").mkdir()
    (klass / "04_linked" / ".git").symlink_to(klass / "02_classmate" / ".git")
    subprocess.run(
        ["git", "clone", "-q", "--shared", str(klass / "02_classmate"), str(klass / "05_shared")],
        check=True,
    )
    smudging(klass, marker)
    eve = repository(klass, "eve")
    commit(eve, {"manual_gradient.py": key()}, ON_TIME)
    far = commit(eve, {"manual_gradient.py": ZEROS}, "@253402300800 +0000")
    fay = repository(klass, "fay")
    offset = commit(
        fay, {"manual_gradient.py": key()}, f"@{int(DEADLINE.timestamp()) - 3600} +2400"
    )
    for name, suffix in (("gus", ".bin"), ("hal", ".py")):
        repo = repository(klass, name)
        blob = zeros(repo)
        for i in range(48):
            stage(repo, f"data/zeros{i:02}{suffix}", blob)
        answer = git(repo, "hash-object", "-w", "--stdin", data=key().encode())
        stage(repo, "manual_gradient.py", answer)
        dated(repo, ON_TIME)
    git(klass / "hal", "repack", "-adq")  # one packed, one loose

    out = tmp_path / "out"
    done = batch.run(
        submissions_dir=klass,
        exercises=[exercises["manual_gradient"]],
        config=Config(examples=8, time_per_call=15.0, time_per_exercise=120.0),
        lang="en",
        root=ROOT,
        jobs=2,
        out=out,
        due=DEADLINE,
    )
    got = {r.submission: r for r in done.results}
    assert not marker.exists(), "a command of the student's repository ran"
    full = {"02_classmate", "dina", "fay", "gus"}
    for name in full:
        assert got[name].score == got[name].max_score > 0, (name, got[name].late)
    assert got["02_classmate"].late["commit"] == mate
    assert got["fay"].late["commit"] == offset and got["fay"].late["committed"].endswith("+00:00")
    unread = {
        "01_broken": f"commit {bad[:12]} holds a name of 300 bytes",
        "03_copycat": ".git is a file",
        "04_linked": ".git is a link",
        "05_shared": "is missing",
        "eve": f"commit {far[:12]}: its committer date",
        "hal": "100663296 bytes, more than the 5242880 allowed",
    }
    for name, why in unread.items():
        r = got[name]
        assert r.score == 0 and why in r.late["unreadable"], (name, r.late)
        assert all(e.status == "error" for e in r.exercises)
        assert "could not be read" in str(r.exercises[0].message)
    data = {
        d["submission"]: d for d in json.loads((out / "results.json").read_text())["submissions"]
    }
    summary, page = (out / "summary.md").read_text(), (out / "report.html").read_text()
    for name, why in unread.items():
        assert why in data[name]["late"]["unreadable"]
        assert f"`{name}`: could not be read: " in summary and name in page
    assert "could not be read: commit" in page
    assert "could not be read" in (out / "feedback" / "01_broken.md").read_text()
    assert (broken / "exercises" / "zz" / "manual_gradient.py").read_text() == ZEROS  # untouched


@pytest.mark.parametrize("packed", [False, True])
def test_a_huge_blob_is_refused_by_its_header_with_memory_bounded(tmp_path, packed):
    repo = repository(tmp_path)
    blob = zeros(repo)
    for i in range(48):
        stage(repo, f"zeros{i:02}.py", blob)
    sha = dated(repo, ON_TIME)
    if packed:
        git(repo, "repack", "-adq")
    tracemalloc.start()
    try:
        with pytest.raises(gitread.Unreadable, match="100663296 bytes, more than the"):
            deadline.export(repo, sha, tmp_path / "copy")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20, peak  # nothing of the blob was inflated
    assert not list((tmp_path / "copy").rglob("*.py"))


def test_files_grading_never_reads_keep_their_names_only(tmp_path):
    """A blob named as data is never read (a 96 MiB one costs nothing); links and submodules
    are not written; a file's bytes are as committed."""
    repo = repository(tmp_path)
    stage(repo, "big.bin", zeros(repo))
    stage(
        repo, "passwd.py", git(repo, "hash-object", "-w", "--stdin", data=b"/etc/passwd"), "120000"
    )
    stage(repo, "sub", git(repo, "rev-parse", "HEAD") if False else "1" * 40, "160000")
    body = b"x = 1\r\n# $Id$\n"
    stage(repo, "run.py", git(repo, "hash-object", "-w", "--stdin", data=body), "100755")
    sha = dated(repo, ON_TIME)
    tracemalloc.start()
    try:
        deadline.export(repo, sha, tmp_path / "copy")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    copy = tmp_path / "copy"
    assert peak < 2**20 and (copy / "big.bin").stat().st_size == 0
    assert (copy / "run.py").read_bytes() == body
    assert not os.path.lexists(copy / "passwd.py") and not os.path.lexists(copy / "sub")


def test_deltas_are_resolved_and_replace_refs_and_grafts_ignored(tmp_path):
    """A packed history of deltas exports each commit as git shows it; `git replace` and
    info/grafts, which change what git shows, change nothing here."""
    repo = repository(tmp_path)
    text, shas = "", []
    for i in range(30):
        text += f"line_{i} = {i} * {'abc' * 20!r}\n"
        shas.append(
            commit(
                repo,
                {"manual_gradient.py": text, "other.py": text[::-1]},
                f"@{1765000000 + i} +0700",
            )
        )
    git(repo, "repack", "-adq", "--depth=50", "--window=50")
    git(repo, "replace", shas[-1], shas[0])
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "grafts").write_text(f"{shas[-1]}\n")
    history = deadline.history(repo)
    assert [s for s, _ in history] == shas[::-1]
    for i in (0, 17, 29):
        deadline.export(repo, shas[i], tmp_path / f"copy{i}")
        want = git(repo, "--no-replace-objects", "show", f"{shas[i]}:manual_gradient.py")
        assert (tmp_path / f"copy{i}" / "manual_gradient.py").read_text().strip() == want
    assert deadline.judge(repo, DEADLINE).commit == shas[-1]


def test_dates_git_accepts_are_read_or_named(tmp_path):
    """+2400 is read (its instant, shown in UTC); year 10000 makes the repository unreadable,
    naming the commit; a date before 1970 is read."""
    repo = repository(tmp_path)
    tree = git(repo, "write-tree")
    text = (
        f"tree {tree}\nauthor s <s@x> -14182940 +0000\ncommitter s <s@x> -14182940 +0000\n\n1969\n"
    )
    old = git(
        repo, "hash-object", "--literally", "-t", "commit", "-w", "--stdin", data=text.encode()
    )
    git(repo, "update-ref", "HEAD", old)
    day = commit(repo, {"a.py": "2\n"}, f"@{int(DEADLINE.timestamp()) - 60} +2400")
    late = deadline.judge(repo, DEADLINE)
    assert late.commit == day and late.committed.endswith("+00:00") and late.later == 0
    assert deadline.history(repo)[-1][0] == old
    far = commit(repo, {"a.py": "3\n"}, "@253402300800 +0000")
    with pytest.raises(gitobjects.Unreadable, match=f"commit {far[:12]}: its committer date"):
        deadline.judge(repo, DEADLINE)


def test_names_the_file_system_refuses_make_the_repository_unreadable(tmp_path):
    for name in ["n" * 256 + ".py", "a/../b.py"]:
        repo = repository(tmp_path, f"r{len(name)}")
        try:
            stage(repo, name, git(repo, "hash-object", "-w", "--stdin", data=b"x\n"))
        except subprocess.CalledProcessError:
            continue  # git itself refuses '..'
        sha = dated(repo, ON_TIME)
        with pytest.raises(gitread.Unreadable, match="holds a name"):
            deadline.export(repo, sha, tmp_path / f"copy{len(name)}")

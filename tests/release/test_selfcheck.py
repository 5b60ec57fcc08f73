"""The release's self-check (grader.release.selfcheck) leaves the release as it was built: what
its own `python -m grader check` writes there (a student's progress file) goes after the run."""

from __future__ import annotations

from grader.release import selfcheck


def test_what_the_check_writes_into_the_release_goes_and_the_release_stays(tmp_path, monkeypatch):
    release = tmp_path / "student"
    (release / "exercises" / "a").mkdir(parents=True)
    (release / "exercises" / "a" / "a.py").write_text("x = 1\n")
    (release / "README.md").write_text("# course\n")
    built = sorted(p.relative_to(release) for p in release.rglob("*"))

    def run_in(folder, submission, python, what, env, limit):
        (folder / ".grader-state.json").write_text("{}")
        (folder / "grader-plots").mkdir()
        (folder / "grader-plots" / "a.png").write_bytes(b"png")
        return {"exercises": []}, "output"

    monkeypatch.setattr(selfcheck, "_run_in", run_in)
    assert selfcheck._run_check(release, None, None, "the starters") == (
        {"exercises": []},
        "output",
    )
    assert sorted(p.relative_to(release) for p in release.rglob("*")) == built
    assert (release / "exercises" / "a" / "a.py").read_text() == "x = 1\n"

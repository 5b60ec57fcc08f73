"""`batch`: a small class graded in parallel; outputs parse, runs repeat, shards merge to one run.

The class holds the answer key, a nested variant, mutants, an empty, a broken, an ambiguous and a
hostile submission, graded on manual_gradient only, with fewer examples than config.yaml.
"""

import csv
import json
import shutil
import xml.etree.ElementTree as ET

import pytest
from classdata import check, fake_serve, gradescope_valid, parts_serve, sharing_serve, t
from classdata import submission as fake_submission
from conftest import EXERCISES, ROOT, SOLUTIONS

from grader.batch import run as batch
from grader.batch.merge import merge
from grader.batch.pool import Lost, Setup, Task, grade_all
from grader.cli import main as cli
from grader.common.errors import GraderError
from grader.grading.grade import expected_calls as grade_calls
from grader.grading.grade import grade
from grader.loader.config import Config
from grader.outcomes import classstats
from grader.report import markdown

MUTANTS = SOLUTIONS / "mutants" / "manual_gradient"
KEY = SOLUTIONS / "manual_gradient.py"
# Few examples, and a time per call far above any honest call even on a loaded machine: a
# timeout would make two runs differ for reasons that have nothing to do with the code.
CONFIG = Config(examples=10, time_per_call=15.0, time_per_exercise=120.0)
CONFIG_YAML = "examples: 10\ntime_per_call: 15\ntime_per_exercise: 120\n"

FULL = 20
"""manual_gradient's points in batch: 19 visible, 1 hidden."""


def files(folder):
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def make_class(root):
    """{submission id: relative path of its manual_gradient.py, or None}; files under root."""
    layout = {
        "key": ("manual_gradient.py", KEY),
        "variant": (
            "tugas/latihan1/manual_gradient.py",
            SOLUTIONS / "variants" / "manual_gradient" / "loop_batch.py",
        ),
        "mutant_sign": ("manual_gradient.py", MUTANTS / "sign_error.py"),
        "mutant_autograd": ("manual_gradient.py", MUTANTS / "autograd_in_manual.py"),
        "broken": ("manual_gradient.py", "def df(x:\n"),
        "hostile": (
            "manual_gradient.py",
            "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
        ),
        "twice": ("a/manual_gradient.py", KEY),
    }
    for name, (rel, source) in layout.items():
        path = root / name / rel
        path.parent.mkdir(parents=True)
        if isinstance(source, str):
            path.write_text(source)
        else:
            shutil.copyfile(source, path)
    shutil.copyfile(KEY, root / "twice" / "manual_gradient.py")
    (root / "empty").mkdir()
    (root / ".git").mkdir()  # not a submission
    (root / "notes.txt").write_text("not a submission either")
    return sorted([*layout, "empty"])


@pytest.fixture(scope="module")
def graded(tmp_path_factory, exercises):
    """One class graded four ways: jobs=2, again with jobs=1, and as shards 1/2 and 2/2."""
    tmp = tmp_path_factory.mktemp("batch")
    names = make_class(tmp / "class")
    common = dict(
        submissions_dir=tmp / "class",
        exercises=[exercises["manual_gradient"]],
        config=CONFIG,
        lang="en",
        root=ROOT,
    )
    runs = {
        "single": batch.run(jobs=2, out=tmp / "single", **common),
        "again": batch.run(jobs=1, out=tmp / "again", **common),
    }
    for k in (1, 2):
        runs[f"shard{k}"] = batch.run(jobs=1, shard=(k, 2), out=tmp / f"shard{k}", **common)
    merge(folders=[tmp / "shard1", tmp / "shard2"], out=tmp / "merged")
    return tmp, names, runs


def _by_id(run):
    return {r.submission: r for r in run.results}


def test_every_submission_is_graded_with_the_expected_outcome(graded):
    _, names, runs = graded
    single = runs["single"]
    assert [r.submission for r in single.results] == names
    assert single.lost == {}
    res = _by_id(single)
    for name in ("key", "variant"):
        assert res[name].score == res[name].max_score == FULL, name
    for name, caught in (
        ("mutant_sign", "df_value"),
        ("mutant_autograd", "no_autograd_in_manual"),
    ):
        failing = [c.id for c in res[name].exercises[0].checks if c.status != "passed"]
        assert caught in failing and res[name].score < FULL, name
    status = {n: res[n].exercises[0].status for n in ("empty", "broken", "twice", "hostile")}
    assert status["empty"] == "missing" and status["broken"] == "error"
    assert status["twice"] == "error" and res["hostile"].score < FULL
    assert all(
        r.environment["seed"] == 20261202 and r.environment["torch"] for r in single.results
    )


def test_all_outputs_parse(graded):
    tmp, names, runs = graded
    out = tmp / "single"
    doc = json.loads((out / "results.json").read_text())
    assert doc["format"] == "grader-batch/1"
    assert [s["submission"] for s in doc["submissions"]] == names
    assert all(
        s["format"] == "grader-result/1" and "seconds" not in s["exercises"][0]
        for s in doc["submissions"]
    )
    with open(out / "grades.csv", newline="") as f:
        rows = {r["submission"]: r for r in csv.DictReader(f)}
    assert list(rows) == names and rows["key"]["total"] == str(FULL)
    sign = _by_id(runs["single"])["mutant_sign"]
    assert rows["mutant_sign"]["manual_gradient"] == f"{sign.score:g}"
    root = ET.parse(out / "junit.xml").getroot()
    assert [s.get("name") for s in root.findall("testsuite")] == names
    checks = len(_by_id(runs["single"])["key"].exercises[0].checks)
    assert int(root.get("tests")) == len(root.findall(".//testcase")) == checks * len(names)
    for name in names:
        gradescope_valid(json.loads((out / "gradescope" / name / "results.json").read_text()))
    summary = (out / "summary.md").read_text()
    assert f"{len(names)} submissions" in summary and "`manual_gradient.df_value`" in summary


def test_two_runs_write_identical_files(graded):
    tmp, _, _ = graded
    assert files(tmp / "single") == files(tmp / "again")


def test_two_shards_merged_equal_one_run(graded):
    tmp, names, runs = graded
    one, two = ([r.submission for r in runs[f"shard{k}"].results] for k in (1, 2))
    assert sorted(one + two) == names and not set(one) & set(two)
    assert files(tmp / "merged") == files(tmp / "single")


def test_discover_takes_subdirectories_by_name(tmp_path):
    for name in ("b", "a", ".hidden"):
        (tmp_path / name).mkdir()
    (tmp_path / "c.py").write_text("")
    assert [t.id for t in batch.discover(tmp_path)] == ["a", "b"]
    with pytest.raises(GraderError, match="not found"):
        batch.discover(tmp_path / "nope")


def test_outputs_inside_the_class_are_refused(tmp_path, exercises):
    for out in (tmp_path / "out", tmp_path, tmp_path.parent):
        with pytest.raises(GraderError, match="overlap"):
            batch.run(
                submissions_dir=tmp_path,
                exercises=[exercises["manual_gradient"]],
                config=CONFIG,
                lang="en",
                root=ROOT,
                out=out,
            )


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", ""])
def test_bad_shards_are_refused(text):
    with pytest.raises(GraderError, match="--shard"):
        batch.parse_shard(text)


@pytest.mark.parametrize("count", [0, 1, 7, 13])
def test_shards_are_disjoint_cover_the_class_and_balance(count):
    tasks = [Task(f"s{i:02d}", None) for i in range(count)]
    for n in range(1, 6):
        parts = [batch.take_shard(tasks, batch.parse_shard(f"{k}/{n}")) for k in range(1, n + 1)]
        ids = [t.id for part in parts for t in part]
        assert sorted(ids) == [t.id for t in tasks] and len(set(ids)) == len(ids)
        assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_conceal_drops_inputs_of_hidden_checks_only():
    r = fake_submission("ana", {"a": "failed", "h": "failed"})
    r.exercises[0].checks[2].traceback.append('File "ex.py", line 3, in f')
    # an exception's type name is the worker's text: it may spell out the inputs
    r.exercises[0].checks[2].cause = "raised:Err_x_0_25:f"
    r.exercises[0].checks[0].cause = "raised:ValueError:f"
    for c in (r.exercises[0].checks[0], r.exercises[0].checks[2]):
        c.mistake, c.mistake_title = "grad_not_reset", t("the old gradient was not reset")
    shown = batch.conceal(r).exercises[0].checks
    a, h = shown[0], shown[2]
    assert a.counterexample and "a is wrong" in a.message.en and a.cause == "raised:ValueError:f"
    assert a.mistake == "grad_not_reset" and a.mistake_title.en.startswith("the old")
    assert h.counterexample is None and h.traceback == [] and h.cause is None
    assert h.mistake is None and h.mistake_title is None  # what the hidden inputs showed
    assert h.message.en.startswith("Hidden check (value) did not pass (failed): title of h")
    assert "tersembunyi" in h.message.id and (h.status, h.points) == ("failed", 0.0)
    passed = check("h", "passed", 1.0, 1.0, hidden=True)
    assert batch._conceal_check(passed) is passed


@pytest.mark.parametrize("groups", [None, [("x",), ("y",)]])
def test_a_crashed_or_stuck_grading_process_costs_only_its_submission(groups):
    tasks = [Task(n, None) for n in ("a", "crash", "b", "slow", "halfcrash", "c", "d")]
    setup = Setup(spec_paths=(), root=ROOT, config=None)
    finished = list(
        grade_all(tasks, jobs=2, setup=setup, limit=3, target=fake_serve, groups=groups)
    )
    got = {t.id: o for t, o in finished}
    assert sorted(t.id for t, _ in finished) == sorted(t.id for t in tasks)  # each once
    assert got["crash"] == Lost("crash", "the grading process stopped (exit code 3)")
    assert got["slow"].reason == "limit"
    assert all(got[n].submission == n for n in ("a", "b", "c", "d"))
    if groups:  # one part lost after the other came back: the submission is lost
        assert got["halfcrash"] == Lost("crash", "the grading process stopped (exit code 3)")
    else:
        assert got["halfcrash"].submission == "halfcrash"


def test_a_submission_graded_in_parts_is_put_back_whole():
    """Each process grades its own part of every submission where it can; the parts come back
    as one result, the exercises and their spec hashes in the course's order."""
    tasks = [Task(f"s{i}", None) for i in range(6)]
    setup = Setup(spec_paths=(), root=ROOT, config=None)
    parts = [("a", "c"), ("b",)]
    got = list(
        grade_all(
            tasks,
            jobs=2,
            setup=setup,
            limit=60,
            target=parts_serve,
            groups=parts,
            order=("a", "b", "c"),
        )
    )
    assert sorted(t.id for t, _ in got) == [t.id for t in tasks]
    for task, result in got:
        assert result.submission == task.id
        assert [e.id for e in result.exercises] == ["a", "b", "c"]
        assert list(result.environment["spec_hashes"]) == ["a", "b", "c"]
        assert result.exercises[0].file == result.exercises[2].file  # one part, one process
    # the first submission's parts went to the two processes, one each
    first = next(r for t, r in got if t.id == "s0")
    assert first.exercises[0].file != first.exercises[1].file


def test_groups_split_the_course_by_calls(exercises, fast_config):
    chosen = list(exercises.values())
    for count in (1, 2, 3, len(chosen), len(chosen) + 4):
        parts = batch.groups(chosen, fast_config, count)
        assert len(parts) == min(count, len(chosen))
        ids = [e for part in parts for e in part]
        assert sorted(ids) == sorted(e.id for e in chosen)  # each exercise in one part
        order = [e.id for e in chosen]
        assert all(list(part) == sorted(part, key=order.index) for part in parts)
    cost = {e.id: grade_calls(e, fast_config, True) for e in chosen}
    loads = [sum(cost[e] for e in part) for part in batch.groups(chosen, fast_config, 2)]
    assert max(loads) - min(loads) <= max(cost.values())


def test_grading_processes_share_the_verdicts_they_keep(tmp_path):
    """A verdict one grading process keeps reaches the other with its next task, never its
    own process (it has it), and never twice."""
    tasks = [Task(n, tmp_path) for n in ("a", "b", "c", "d", "e", "f")]
    setup = Setup(spec_paths=(), root=ROOT, config=None)
    got = {
        t.id: o.environment
        for t, o in grade_all(tasks, jobs=2, setup=setup, limit=60, target=sharing_serve)
    }
    assert got["a"]["known"] == got["b"]["known"] == []  # both begin with nothing kept
    assert got["a"]["pid"] == got["c"]["pid"] != got["b"]["pid"] == got["d"]["pid"]
    assert got["c"]["known"] == []  # given when a answered, before b did
    assert got["d"]["known"] == ["key-a"]  # a's, from the other process; not b's, its own
    for pid in {env["pid"] for env in got.values()}:
        heard = [k for env in got.values() if env["pid"] == pid for k in env["known"]]
        assert len(heard) == len(set(heard))
        assert all(got[k.removeprefix("key-")]["pid"] != pid for k in heard)


def test_a_lost_submission_scores_zero_blaming_the_grader(tmp_path, exercises):
    for name in ("crash", "ok"):
        (tmp_path / name).mkdir()
    done = batch.run(
        submissions_dir=tmp_path,
        exercises=[exercises["manual_gradient"]],
        config=CONFIG,
        lang="en",
        root=ROOT,
        jobs=1,
        target=fake_serve,
    )
    assert list(done.lost) == ["crash"]
    lost = _by_id(done)["crash"].exercises[0]
    assert lost.status == "error" and lost.max_score == FULL
    assert "grader's fault" in lost.message.en and "exit code 3" in lost.message.en
    assert {c.status for c in lost.checks} == {"error"}


def test_overloaded_submissions_are_graded_again_at_the_end_and_named(tmp_path, exercises):
    """A check the machine was too busy to grade is no verdict: batch grades that submission
    once more after the others; one still overloaded is named in the batch's result and in
    summary.md, never left as a score."""
    for name in ("ok", "busy-once", "busy-always"):
        (tmp_path / name).mkdir()
    done = batch.run(
        submissions_dir=tmp_path,
        exercises=[exercises["manual_gradient"]],
        config=CONFIG,
        lang="en",
        root=ROOT,
        jobs=1,
        target=fake_serve,
    )
    assert sorted(done.regraded) == ["busy-always", "busy-once"]
    assert done.overloaded == ["busy-always"] and not done.lost
    assert _by_id(done)["busy-once"].exercises == []  # the second grading's result stands
    text = markdown.text(classstats.compute(done.results), "en")
    assert "Not fully graded" in text and "`busy-always`" in text and "busy-once`" not in text
    calm = markdown.text(classstats.compute([r for r in done.results if r.exercises == []]), "id")
    assert "Belum dinilai" not in calm


HIDDEN = """
  - id: df_hidden
    kind: value
    hidden: true
    title: {id: "df(x) benar untuk vektor", en: "df(x) is right on vectors"}
    function: df
    args:
      x: {shape: [3], low: 1, high: 3}
    expect: {grad_of: f, wrt: x}
    points: 2
"""


def test_cli_hidden_checks_and_a_regrade(tmp_path, sandbox, capsys):
    """Hidden checks run in batch only and never show their inputs; a regrade names the flip."""
    exdir = tmp_path / "exercises"
    (exdir / "manual_gradient").mkdir(parents=True)
    spec = (EXERCISES / "manual_gradient" / "exercise.yaml").read_text().rstrip() + "\n"
    (exdir / "manual_gradient" / "exercise.yaml").write_text(spec + HIDDEN)
    klass = tmp_path / "class"
    for name, source in (("key", KEY), ("mutant", MUTANTS / "sign_error.py")):
        (klass / name).mkdir(parents=True)
        shutil.copyfile(source, klass / name / "manual_gradient.py")
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG_YAML)

    from grader.loader import specfile

    (exercise,) = specfile.discover(exdir, root=ROOT)
    student = grade(
        submission_dir=klass / "mutant", exercises=[exercise], config=CONFIG, sandbox=sandbox
    )
    assert student.exercises[0].hidden_checks == 1 + sum(
        c.hidden for c in specfile.load(EXERCISES / "manual_gradient" / "exercise.yaml").checks
    )
    assert "df_hidden" not in [c.id for c in student.exercises[0].checks]
    full = grade(
        submission_dir=klass / "mutant",
        exercises=[exercise],
        config=CONFIG,
        sandbox=sandbox,
        include_hidden=True,
    )
    raw = next(c for c in full.exercises[0].checks if c.id == "df_hidden")
    assert raw.status == "failed" and raw.counterexample

    def batch_cli(out):
        return cli.main(
            [
                "--config",
                str(config),
                "--exercises-dir",
                str(exdir),
                "batch",
                str(klass),
                "--out",
                str(out),
                "--jobs",
                "1",
                "--lang",
                "en",
                "--gradebook",
                str(tmp_path / "gb.sqlite"),
            ]
        )

    assert batch_cli(tmp_path / "out1") == 0
    first = capsys.readouterr().out
    assert "[2/2]" in first and "run 1 recorded" in first
    doc = json.loads((tmp_path / "out1" / "results.json").read_text())
    row = next(
        c for c in doc["submissions"][1]["exercises"][0]["checks"] if c["id"] == "df_hidden"
    )
    assert (row["status"], row["hidden"], row["counterexample"]) == ("failed", True, None)
    assert row["message"].startswith(
        "Hidden check (value) did not pass (failed): df(x) is right on vectors"
    )
    for name, blob in files(tmp_path / "out1").items():
        assert raw.counterexample.encode() not in blob, name
        assert raw.message.en.encode() not in blob, name

    shutil.copyfile(KEY, klass / "mutant" / "manual_gradient.py")
    assert batch_cli(tmp_path / "out2") == 0
    second = capsys.readouterr().out
    assert "1 submission(s) changed" in second
    line = next(x for x in second.splitlines() if x.startswith("mutant:"))
    assert "manual_gradient.df_hidden failed -> passed" in line
    assert "manual_gradient: the student's file was changed" in line
    assert "key:" not in second
    # the class report shows the same: what changed since each submission's previous run
    page = (tmp_path / "out2" / "report.html").read_text()
    assert "What changed since the previous run" in page and "mutant" in page
    assert "What changed since the previous run" in (tmp_path / "out1" / "report.html").read_text()


def test_cli_usage_errors_exit_2(tmp_path, capsys):
    assert cli.main(["batch", str(tmp_path), "--out", str(tmp_path / "o"), "--shard", "3/2"]) == 2
    assert cli.main(["batch", str(tmp_path), "--out", str(tmp_path / "o"), "--jobs", "0"]) == 2
    assert cli.main(["merge", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "--shard '3/2'" in capsys.readouterr().err


def test_batch_grades_with_the_grading_seed_and_never_shows_it(tmp_path, monkeypatch, capsys):
    (tmp_path / "class" / "ana").mkdir(parents=True)
    (tmp_path / "class" / "ana" / "notes.txt").write_text("nothing handed in\n")
    config = tmp_path / "config.yaml"
    config.write_text("language: en\nexamples: 2\nseed: 11\ngrading_seed: 918273645\n")
    monkeypatch.delenv("GRADER_GRADING_SEED", raising=False)
    for env, seed, source in (
        (None, 918273645, "grading_seed"),
        ("5550123", 5550123, "$GRADER_GRADING_SEED"),
    ):
        if env:
            monkeypatch.setenv("GRADER_GRADING_SEED", env)
        out = tmp_path / f"out-{source[-4:]}"
        code = cli.main(
            [
                "--config",
                str(config),
                "batch",
                str(tmp_path / "class"),
                "--out",
                str(out),
                "--exercises",
                "manual_gradient",
            ]
        )
        assert code == 0, capsys.readouterr().out
        env_seen = json.loads((out / "results.json").read_text())["submissions"][0]["environment"]
        assert (env_seen["seed"], env_seen["seed_source"]) == (seed, source)
        assert "seed from " + source in capsys.readouterr().out
        shown = (out / "feedback" / "ana.md").read_text()
        assert str(seed) not in shown and "the teacher's grading seed" in shown


def test_names_no_file_system_or_spreadsheet_can_break(tmp_path, capsys):
    names = ['=HYPERLINK("http://x","y")', "@SUM(A1)", "a" * 250, "con", "ana"]
    for name in names:
        (tmp_path / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / name / "notes.txt").write_text("nothing handed in\n")
    config = tmp_path / "config.yaml"
    config.write_text("language: en\nexamples: 2\n")
    out = tmp_path / "out"
    code = cli.main(
        [
            "--config",
            str(config),
            "batch",
            str(tmp_path / "class"),
            "--out",
            str(out),
            "--exercises",
            "manual_gradient",
        ]
    )
    assert code == 0, capsys.readouterr().out
    feedback = sorted((out / "feedback").iterdir())
    assert len(feedback) == len(names) and (out / "feedback" / "ana.md").is_file()
    titles = {p.read_text().splitlines()[0] for p in feedback}
    assert any("HYPERLINK" in t for t in titles) and any("a" * 100 in t for t in titles)
    assert len(list((out / "gradescope").iterdir())) == len(names)
    with open(out / "grades.csv", newline="") as f:
        firsts = {r["submission"][0] for r in csv.DictReader(f)}
    assert not firsts & set("=+-@\t\r")

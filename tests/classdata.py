"""Small hand-made results of a class, for the reporter, merge and gradebook tests (no grading)."""

from __future__ import annotations

from grader.outcomes.results import CheckResult, ExerciseResult, SubmissionResult
from grader.specs.model import Text

ENV = {
    "grader": "0.1.0",
    "torch": "2.13.0",
    "hypothesis": "6",
    "python": "3.11",
    "seed": 7,
    "spec_hashes": {"ex": "aaaa"},
}


def t(s: str) -> Text:
    return Text(id=f"{s} (id)", en=s)


def check(
    cid,
    status,
    points,
    max_points,
    message=None,
    counter=None,
    hidden=False,
    bonus=False,
    kind="value",
):
    return CheckResult(
        id=cid,
        title=t(f"title of {cid}"),
        kind=kind,
        status=status,
        points=points,
        max_points=max_points,
        message=t(message) if message else None,
        counterexample=counter,
        hint=t(f"hint for {cid}") if status != "passed" else None,
        hidden=hidden,
        bonus=bonus,
    )


def submission(name, statuses: dict, env=None) -> SubmissionResult:
    """statuses: check id -> status for exercise 'ex' with checks a (2 points), b (1), h (1,
    hidden); a check that did not pass scores 0."""
    points = {"a": 2.0, "b": 1.0, "h": 1.0}
    rows = []
    for cid, max_points in points.items():
        status = statuses.get(cid, "passed")
        ok = status == "passed"
        rows.append(
            check(
                cid,
                status,
                max_points if ok else 0.0,
                max_points,
                message=None if ok else f"{cid} is wrong: got 1 <want> 2 & \x01",
                counter=None if ok else f"x = tensor([{len(name)}.5])",
                hidden=cid == "h",
            )
        )
    status = "passed" if all(s == "passed" for s in statuses.values()) else "failed"
    ex = ExerciseResult(
        id="ex", title=t("Exercise | one"), status=status, checks=rows, file="ex.py"
    )
    return SubmissionResult(submission=name, exercises=[ex], environment=dict(env or ENV))


def klass() -> list[SubmissionResult]:
    """Four students; check a passes 1 of 4, b 2 of 4 (one error), h (hidden) 3 of 4."""
    return [
        submission("ana", {}),
        submission("budi", {"a": "failed"}),
        submission("citra", {"a": "failed", "b": "failed", "h": "failed"}),
        submission("dewi", {"a": "failed", "b": "error"}),
    ]


VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def gradescope_valid(doc: dict) -> None:
    """The fields Gradescope's autograder reads, with their types."""
    assert isinstance(doc["score"], (int, float))
    assert doc.get("visibility", "visible") in VISIBILITY
    assert doc.get("stdout_visibility", "visible") in VISIBILITY
    assert isinstance(doc.get("output", ""), str)
    assert isinstance(doc["tests"], list)
    for test in doc["tests"]:
        assert set(test) <= {
            "score",
            "max_score",
            "status",
            "name",
            "name_format",
            "number",
            "output",
            "output_format",
            "tags",
            "visibility",
            "extra_data",
        }
        assert isinstance(test["score"], (int, float))
        assert isinstance(test["max_score"], (int, float))
        assert test["status"] in ("passed", "failed")
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert test["visibility"] in VISIBILITY
        assert all(isinstance(tag, str) for tag in test["tags"])


def fake_serve(conn, setup) -> None:
    """A stand-in grading process for pool tests: 'crash' kills it, 'slow' hangs, others pass."""
    import os
    import time

    while True:
        task = conn.recv()
        if task is None:
            return
        if task.id.startswith("crash"):
            os._exit(3)
        if task.id.startswith("halfcrash") and task.part and "y" in task.part:
            time.sleep(0.5)  # after its other part has answered
            os._exit(3)
        if task.id.startswith("slow"):
            time.sleep(60)
        if task.id.startswith("busy"):  # busy-once: overloaded the first time only
            seen = os.path.join(task.path, "graded-once")
            first = not os.path.exists(seen)
            open(seen, "w").close()
            if first or task.id.startswith("busy-always"):
                conn.send(overloaded(task.id))
                continue
        conn.send(SubmissionResult(submission=task.id, exercises=[], environment={}))


def sharing_serve(conn, setup) -> None:
    """A stand-in grading process that keeps one verdict per task ("key-<id>") and answers
    with the keys it was sent (environment "known") and its pid. Task paths are one folder
    the processes meet in: `b` waits for `a` to have answered, `c` for `d` to have begun."""
    import os
    import time
    from pathlib import Path

    from grader.batch.pool import Graded

    def wait_for(name):
        for _ in range(600):
            if (Path(task.path) / name).exists():
                return
            time.sleep(0.05)

    while True:
        task = conn.recv()
        if task is None:
            return
        if task.id == "b":
            wait_for("a")
            time.sleep(0.5)
        if task.id == "c":
            wait_for("d")
        if task.id == "d":
            (Path(task.path) / "d").touch()
        env = {"known": [k for k, _ in task.known], "pid": os.getpid()}
        kept = ((f"key-{task.id}", submission(task.id, {"x": "passed"}).exercises[0]),)
        conn.send(Graded(SubmissionResult(task.id, [], env), kept))
        if task.id == "a":
            (Path(task.path) / "a").touch()


def parts_serve(conn, setup) -> None:
    """A stand-in grading process that grades the exercises of the task's part: one passed row
    each, its spec hash "h-<id>", and the process's pid as the row's file."""
    import os

    from grader.batch.pool import Graded

    while True:
        task = conn.recv()
        if task is None:
            return
        rows = [
            ExerciseResult(e, t(e), "passed", [check("c", "passed", 1, 1)], file=str(os.getpid()))
            for e in task.part
        ]
        env = dict(ENV, spec_hashes={e: f"h-{e}" for e in task.part})
        conn.send(Graded(SubmissionResult(task.id, rows, env)))


def overloaded(name: str) -> SubmissionResult:
    """A submission one of whose checks the machine was too busy to grade."""
    result = submission(name, {"a": "error"})
    result.exercises[0].checks[0].cause = "overloaded"
    return result

"""Pictures for `check --plot`: a failed elementwise function of one tensor (df, sigmoid), drawn
as the student's curve and torch's over the check's domain, with the mismatch marked.

The student's function runs in a worker as in grading (a fresh session on a scratch copy); the
reference comes from the spec, evaluated here, or in a students' release from the curve `release`
recorded (grader/recorded.py). Needs matplotlib (`pip install -e ".[plot]"`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from grader.checks import KINDS
from grader.checks.base import Judging
from grader.common.errors import GraderError
from grader.grading import recorded
from grader.grading.grade import hidden_paths
from grader.grading.judge import pre_judge
from grader.grading.session import ImportFailure, Session
from grader.outcomes.results import SubmissionResult
from grader.sandbox.workers import SandboxError, WorkerLost
from grader.specs import refs
from grader.specs.model import Check, Exercise, TensorArg
from grader.submissions import answer, notebook
from grader.submissions import files as submission

POINTS = 401
PLOTTABLE = ("value", "finite")
WORDS = {
    "id": {
        "yours": "punyamu",
        "torch": "torch",
        "bad": "tidak cocok",
        "err": "|galat|",
        "tol": "toleransi",
    },
    "en": {
        "yours": "yours",
        "torch": "torch",
        "bad": "mismatch",
        "err": "|error|",
        "tol": "tolerance",
    },
}


@dataclass
class Picture:
    exercise: str
    check: str
    path: Path
    mismatches: int


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def plottable(check: Check) -> bool:
    """An elementwise function of one tensor, compared with one tensor of the same shape."""
    e = check.expect
    return (
        check.kind in PLOTTABLE
        and check.function is not None
        and e is not None
        and len(check.args) == 1
        and isinstance(check.args[0], TensorArg)
        and check.args[0].shape == "any"
        and e.upstream is None
        and (not e.grad or isinstance(e.wrt, str))
    )


def draw_failed(
    *,
    result: SubmissionResult,
    exercises: list[Exercise],
    submission_dir: Path,
    config,
    sandbox,
    out: Path,
    lang: str,
) -> list[Picture]:
    """A PNG per failed plottable check of this result, in `out`."""
    if not available():
        raise GraderError(
            '--plot needs matplotlib: pip install matplotlib (or pip install -e ".[plot]")'
        )
    by_id = {e.id: e for e in exercises}
    pictures = []
    for er in result.exercises:
        exercise = by_id.get(er.id)
        failed = [c.id for c in er.checks if c.status in ("failed", "error")]
        checks = (
            [c for c in exercise.checks if c.id in failed and plottable(c)] if exercise else []
        )
        if checks:
            pictures += _draw_exercise(
                exercise, checks, Path(submission_dir), config, sandbox, Path(out), lang
            )
    return pictures


def _draw_exercise(exercise, checks, submission_dir, config, sandbox, out, lang):
    graded = answer.choose(submission_dir, exercise).path
    if graded is None:
        return []
    found = [graded]
    try:
        _, raw = notebook.load(found[0])
    except (OSError, ValueError):
        return []
    scratch = submission.scratch_copy(found[0], raw, exercise.file)
    session = Session(sandbox, exercise, str(scratch), config, hide=hidden_paths(submission_dir))
    pictures = []
    try:
        session.start()
        for check in checks:
            curve = _curve(session, exercise, check)
            if curve is not None:
                pictures.append(_save(exercise, check, *curve, out, lang))
    except (ImportFailure, WorkerLost, SandboxError):
        pass
    finally:
        session.close()
        submission.remove(scratch)
    return pictures


def grid(check: Check) -> tuple[str, torch.Tensor]:
    """(the dtype, the points) a plottable check's curves are drawn at."""
    arg = check.args[0]
    dtype = "float64" if "float64" in check.dtypes else check.dtypes[0]
    return dtype, torch.linspace(arg.low, arg.high, POINTS, dtype=getattr(torch, dtype))


def reference_curve(exercise: Exercise, check: Check) -> torch.Tensor | None:
    """The reference at the grid's points: from the spec, or as a release recorded it."""
    if exercise.recorded is not None:
        return recorded.load(exercise).curves.get(check.id)
    _, points = grid(check)
    return refs.expected(check.expect, exercise.references, {check.args[0].name: points})


def _curve(session, exercise, check):
    arg = check.args[0]
    dtype, points = grid(check)
    inputs = {arg.name: points}
    try:
        reply, values = session.call(check, KINDS[check.kind], inputs)
    except WorkerLost:
        return None
    if pre_judge(check, reply) is not None:
        return None
    outs = values.get("outs")
    got = outs[0] if isinstance(outs, (list, tuple)) and outs else None
    data = getattr(got, "data", None)
    if not isinstance(data, torch.Tensor) or data.shape != points.shape:
        return None
    want = reference_curve(exercise, check)
    if want is None:
        return None
    rtol, atol = Judging(exercise, check, inputs).tolerances[dtype]
    got_d, want_d = data.to(torch.float64), want.detach().to(torch.float64)
    bad = ~torch.isclose(got_d, want_d, rtol=rtol, atol=atol, equal_nan=True)
    return points.to(torch.float64), got_d, want_d, bad, (rtol, atol)


def _save(exercise, check, x, got, want, bad, tol, out: Path, lang: str) -> Picture:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    words = WORDS[lang]
    x, got, want, bad = x.numpy(), got.numpy(), want.numpy(), bad.numpy()
    fig, (top, bottom) = plt.subplots(
        2, 1, sharex=True, figsize=(8, 6), gridspec_kw={"height_ratios": [3, 1]}
    )
    top.plot(x, want, color="tab:blue", lw=2, label=words["torch"])
    top.plot(x, got, color="tab:orange", lw=1.2, ls="--", label=words["yours"])
    if bad.any():  # the mismatch: shaded where it is, NaN/inf marked at torch's value
        top.fill_between(
            x,
            0,
            1,
            where=bad,
            transform=top.get_xaxis_transform(),
            color="red",
            alpha=0.12,
            step="mid",
            label=f"{words['bad']} ({int(bad.sum())}/{bad.size})",
        )
        nonfinite = bad & ~(abs(got) < float("inf"))
        if nonfinite.any():
            top.scatter(
                x[nonfinite],
                want[nonfinite],
                color="red",
                marker="x",
                s=20,
                zorder=3,
                label="NaN/inf",
            )
    top.set_title(f"{exercise.id}: {check.function} ({check.id})")
    top.legend(loc="best")
    top.grid(alpha=0.3)
    err = abs(got - want)
    err[~(err < float("inf"))] = float("nan")
    bottom.semilogy(x, err + 1e-300, color="tab:red", lw=1)
    rtol, atol = tol
    bottom.semilogy(x, atol + rtol * abs(want) + 1e-300, color="gray", ls=":", label=words["tol"])
    bottom.set_ylabel(words["err"])
    bottom.set_xlabel(check.args[0].name)
    bottom.legend(loc="best")
    bottom.grid(alpha=0.3)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{exercise.id}-{check.id}.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Picture(exercise=exercise.id, check=check.id, path=path, mismatches=int(bad.sum()))

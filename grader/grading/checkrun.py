"""One check against one submission: replay the recorded or drawn examples, let hypothesis find
and shrink a failure, and turn what happened (a verdict, a lost worker, a spec bug) into a row."""

from __future__ import annotations

from hypothesis import given
from hypothesis import seed as hseed
from hypothesis.errors import Flaky

from grader.checks import KINDS
from grader.checks.base import NotRecorded, Verdict
from grader.checks.messages import both, overloaded
from grader.common import textform
from grader.common.errors import GraderError
from grader.grading import confirm, examples, recorded, shrinks
from grader.grading.judge import judged, simplest
from grader.grading.session import Session
from grader.loader.config import Config
from grader.outcomes.results import CheckResult
from grader.sandbox.workers import SandboxError, WorkerLost
from grader.specs import strategies
from grader.specs.model import Check, Exercise
from grader.specs.refs import SpecBug


class Failed(Exception):
    def __init__(self, verdict: Verdict, inputs: dict):
        super().__init__(verdict.status)
        self.verdict, self.inputs = verdict, inputs


class ShrinkCut(BaseException):
    """`batch`'s shrink budget is spent (config.yaml shrink_budget): the property stops
    hypothesis, which lets through what is not an Exception, and the smallest failure found so
    far is reported (with shrink_cut). The verdict is the same: a check fails on its first
    failing example, whatever the shrink finds after it."""


def over_budget(made: list, index: int, budget: int | None) -> bool:
    """Whether the call at `index` would pass the shrink budget: more than `budget` calls after
    the first failing one. A count of the calls in order, so a walk of the tree and hypothesis's
    run stop at the same call."""
    if budget is None:
        return False
    for i in range(min(index, len(made))):
        if made[i].outcome == shrinks.FAILED:
            return index - i > budget
    return False


def counterexample(check: Check, inputs: dict | None) -> str | None:
    """The failing example as the check's kind shows it (a scenario adds the setup that built
    the objects its function ran on)."""
    kind = KINDS.get(check.kind)
    return kind.counterexample(check, inputs) if kind else textform.counterexample(check, inputs)


def row(
    check: Check,
    verdict: Verdict | None,
    counter: str | None = None,
    output: tuple[str, int] = ("", 0),
    cut: bool = False,
) -> CheckResult:
    if verdict is None:
        return CheckResult(
            id=check.id,
            title=check.title,
            kind=check.kind,
            status="passed",
            points=check.points,
            max_points=check.points,
            hidden=check.hidden,
            bonus=check.bonus,
        )
    return CheckResult(
        id=check.id,
        title=check.title,
        kind=check.kind,
        status=verdict.status,
        points=0.0,
        max_points=check.points,
        message=verdict.message,
        counterexample=counter,
        hint=verdict.hint or check.hint,
        traceback=verdict.traceback,
        hidden=check.hidden,
        bonus=check.bonus,
        cause=verdict.cause,
        mistake=verdict.mistake.id if verdict.mistake else None,
        mistake_title=verdict.mistake.title if verdict.mistake else None,
        output=output[0] or None,
        output_cut=output[1],
        shrink_cut=cut,
    )


def replayed(session: Session, exercise: Exercise, check: Check, kind, drawn) -> int:
    """How many of the check's drawn examples (grader.grading.examples) pass, in order, before the
    first that fails (all of them: the check passes)."""
    copies = [drawn.example(i) for i in range(len(drawn.inputs))]
    for i, reply, values in session.stream(check, kind, copies):
        try:
            if judged(exercise, check, kind, copies[i], reply, values, drawn.memo[i]):
                return i
        except SpecBug:  # hypothesis shrinks it and says so, as without replay
            return i
    return len(copies)


def run_check(
    session: Session, exercise: Exercise, check: Check, config: Config, retried: bool = False
) -> CheckResult:
    if exercise.recorded is not None:
        return run_recorded(session, exercise, check, config)
    kind = KINDS[check.kind]
    last: dict = {}
    seed = strategies.seed_for(config.seed, exercise, check)
    count = check.examples or config.examples
    drawn = examples.examples(exercise, check, kind, count, seed) if examples.enabled() else None
    passed = {"known": 0, "calls": 0}
    made: list[shrinks.Made] = []
    """Every call of the property so far, in order (grader.grading.shrinks)."""
    budget = config.shrink_budget if config.bounded_shrink else None

    def call(inputs, memo: dict | None, kept: dict | None = None):
        """One call of the property, made once: a call already made in this grading (by the
        walk of the tree) gives again what it gave. kept: a copy of the inputs as drawn."""
        index = passed["calls"]
        if over_budget(made, index, budget):
            del made[index:]
            raise ShrinkCut
        passed["calls"] += 1
        if index < len(made):
            if examples.same(inputs, made[index].inputs):
                return _again(made[index], last)
            del made[index:]  # not the sequence the tree said: this run is not kept
            passed["astray"] = 1
        if kept is None:  # (only a tree keeps it: without replay there is none)
            kept = inputs if drawn is None else examples.copied(inputs)
        made.append(this := shrinks.Made(kept, {} if memo is None else memo))
        if index < passed["known"] and examples.same(inputs, drawn.inputs[index]):
            this.outcome = shrinks.PASSED  # replay saw this very example pass
            return
        try:
            reply, values = session.call(check, kind, inputs)
            verdict = judged(exercise, check, kind, inputs, reply, values, this.memo)
        except Exception as exc:
            this.raised = exc
            raise
        if verdict is None:
            this.outcome = shrinks.PASSED
            return
        this.outcome, this.raised = shrinks.FAILED, Failed(verdict, inputs)
        last["failure"] = this.raised
        last.setdefault("first", inputs)
        raise this.raised

    def prop(inputs):
        call(inputs, None)

    def outcome(step: shrinks.Step) -> str:
        """The call of a step of the tree, as the property makes it."""
        try:
            call(examples.copied(step.inputs), step.memo, step.inputs)
        except Failed:
            return shrinks.FAILED
        except Exception:
            return shrinks.OTHER  # hypothesis meets it again, in its place
        return shrinks.PASSED

    def test():
        """Hypothesis's run of the property, the check's edges first (built when it runs)."""
        run = examples.with_edges(
            given(kind.strategy(exercise, check))(prop), exercise, check, kind
        )
        return hseed(seed)(strategies.profile(count)(run))()

    try:
        if drawn is not None:
            try:
                passed["known"] = replayed(session, exercise, check, kind, drawn)
            finally:
                examples.save(drawn)
            if passed["known"] == len(drawn.inputs):
                return row(check, None)
            end = shrinks.walk(drawn.runs, outcome, budget)
            if end == shrinks.END:
                raise last["failure"]
            if end is not None:
                raise ShrinkCut  # a run cut at this budget, where it was cut
            passed["calls"] = 0
        # A failure: hypothesis draws the same examples, meets it and shrinks it.
        try:
            test()
        except Failed as failure:
            if drawn is not None and not passed.get("astray") and failure is made[-1].raised:
                shrinks.add(drawn, made)
            raise
        except ShrinkCut:
            if drawn is not None and not passed.get("astray"):
                shrinks.add(drawn, made, cut=budget)
            raise
    except (Failed, ShrinkCut) as stopped:
        cut = isinstance(stopped, ShrinkCut)
        failure = last["failure"] if cut else stopped
        output = session.last_output  # what the failing call printed, before confirm's calls
        verdict = confirm.confirmed(
            session=session,
            exercise=exercise,
            check=check,
            kind=kind,
            verdict=failure.verdict,
            shrunk=failure.inputs,
            first=last.get("first"),
            seed=seed,
            name=config.feedback_for(exercise).level != "values",
        )
        shown = simplest(session, exercise, check, kind, verdict, failure.inputs)
        return row(check, verdict, counterexample(check, shown), output, cut)
    except WorkerLost as lost:
        if lost.kind == "exercise_timeout" and "failure" in last:
            failure = last["failure"]
            return row(check, failure.verdict, counterexample(check, failure.inputs))
        return _lost_row(
            session,
            check,
            config,
            lost,
            None
            if retried
            else (lambda: run_check(session, exercise, check, config, retried=True)),
        )
    except SpecBug as bug:
        return row(check, _grader_error(bug))
    except Flaky:
        failure = last.get("failure")
        verdict = Verdict(
            "failed",
            both(
                "Hasil berubah-ubah untuk input yang sama (tidak deterministik). {m}",
                "Results differ between calls with the same input (not deterministic). {m}",
                m=failure.verdict.message if failure else "",
            ),
        )
        return row(check, verdict, counterexample(check, failure.inputs) if failure else None)
    except SandboxError as exc:
        return row(check, _grader_error(exc))
    return row(check, None)


def _again(made: shrinks.Made, last: dict):
    """What a call already made gave, given again (and the failures it recorded)."""
    if made.outcome == shrinks.PASSED:
        return
    if isinstance(made.raised, Failed):
        last["failure"] = made.raised
        last.setdefault("first", made.raised.inputs)
    raise made.raised


def run_recorded(
    session: Session, exercise: Exercise, check: Check, config: Config, retried: bool = False
) -> CheckResult:
    """A check of a students' release, judged on its recorded examples (grader.grading.recorded), in
    their order (smallest first): the first failing one is reported, and a mistake is named only
    where the next failing ones (up to confirm.FRESH) confirm it."""
    kind = KINDS[check.kind]
    try:
        drawn = recorded.load(exercise).checks[check.id]
    except GraderError as exc:
        return row(check, _grader_error(exc))
    copies = [drawn.example(i) for i in range(len(drawn.inputs))]
    failures: list[tuple[int, Verdict, dict, dict]] = []
    try:
        for i, reply, values in session.stream(check, kind, copies):
            verdict = judged(
                exercise, check, kind, copies[i], reply, values, drawn.memo[i], recorded=True
            )
            if verdict is not None:
                failures.append((i, verdict, reply, values))
                if len(failures) > confirm.FRESH:
                    break
        if not failures:
            return row(check, None)
        first = failures[0][0]
        inputs = drawn.example(first)  # again, alone, for what it prints (as hypothesis would)
        reply, values = session.call(check, kind, inputs)
        output = session.last_output
        verdict = (
            judged(exercise, check, kind, inputs, reply, values, drawn.memo[first], recorded=True)
            or failures[0][1]
        )
        verdict = confirm.recorded(
            exercise=exercise,
            check=check,
            kind=kind,
            verdict=verdict,
            first=(inputs, drawn.memo[first], reply, values),
            others=[(copies[i], drawn.memo[i], r, v) for i, _, r, v in failures[1:]],
        )
        shown = simplest(session, exercise, check, kind, verdict, drawn.example(first), True)
        return row(check, verdict, counterexample(check, shown), output)
    except WorkerLost as lost:
        if failures:  # a smaller example already failed: that is the one to tell
            i, verdict = failures[0][:2]
            return row(check, verdict, counterexample(check, drawn.inputs[i]))
        return _lost_row(
            session,
            check,
            config,
            lost,
            None
            if retried
            else (lambda: run_recorded(session, exercise, check, config, retried=True)),
        )
    except (SpecBug, NotRecorded) as bug:
        return row(check, _grader_error(f"{type(bug).__name__}: {bug}"))
    except SandboxError as exc:
        return row(check, _grader_error(exc))


def _grader_error(what) -> Verdict:
    return Verdict(
        "error",
        both(
            "Kesalahan grader (bukan salahmu): {e}", "Grader error (not your fault): {e}", e=what
        ),
    )


def _lost_row(
    session: Session, check: Check, config: Config, lost: WorkerLost, again
) -> CheckResult:
    """The row of a check whose worker was lost on the call in flight. A call that was
    runnable but kept off the CPU by other processes, to the end of the extra wall time it was
    given (Worker.receive), is not the student's timeout: again() grades the check once more in
    a fresh worker (None: that was the second time), and a second starvation names the
    machine, never the student."""
    shown = counterexample(check, session.in_flight) if session.in_flight else None
    if lost.kind == "timeout" and lost.starved:
        if again is not None:
            return again()
        return row(
            check,
            Verdict("error", overloaded(check.function, config.time_per_call), cause="overloaded"),
            shown,
        )
    return row(check, _lost_verdict(lost, check, config), shown, session.last_output)


def _lost_verdict(lost: WorkerLost, check: Check, config: Config) -> Verdict:
    fn = check.function
    if lost.kind == "timeout":
        return Verdict(
            "timeout",
            both(
                "{fn} melebihi batas waktu {t:g} detik per panggilan (loop tak berujung, atau "
                "terlalu lambat).",
                "{fn} ran past the limit of {t:g} s per call (an endless loop, or too slow).",
                fn=fn,
                t=config.time_per_call,
            ),
        )
    if lost.kind == "exercise_timeout":
        return Verdict(
            "timeout",
            both(
                "Waktu untuk latihan ini ({t:g} detik) habis sebelum pemeriksaan ini selesai.",
                "The time for this exercise ({t:g} s) ran out before this check finished.",
                t=config.time_per_exercise,
            ),
        )
    if lost.kind == "signal":
        return Verdict(
            "error",
            both(
                "Proses mati oleh sinyal {s} saat menjalankan {fn} (crash).",
                "The process died by signal {s} while running {fn} (a crash).",
                s=lost.signal,
                fn=fn,
            ),
        )
    if lost.kind == "vanished":
        return Verdict(
            "error",
            both(
                "Proses berhenti saat menjalankan {fn} tanpa status keluar (apakah kode itu membunuh "
                "proses induknya?).",
                "The process vanished while running {fn}, with no exit status (did the code kill "
                "its parent process?).",
                fn=fn,
            ),
        )
    if lost.kind == "memory":
        return Verdict(
            "error",
            both(
                "{fn} kehabisan memori: mencapai batas {m} per worker (termasuk proses anaknya).",
                "{fn} ran out of memory: it reached the per-worker limit of {m} (its child "
                "processes included).",
                fn=fn,
                m=textform.size(config.memory_per_worker),
            ),
        )
    if lost.kind == "protocol":
        return Verdict(
            "error",
            both(
                "Proses pekerja mengirim data rusak saat menjalankan {fn}.",
                "The worker process sent malformed data while running {fn}.",
                fn=fn,
            ),
        )
    return Verdict(
        "error",
        both(
            "{fn} menghentikan proses (exit, kode {c}). Jangan memanggil exit di dalam fungsi.",
            "{fn} ended the process (exit, code {c}). Do not call exit inside a function.",
            fn=fn,
            c=lost.exit_code,
        ),
    )

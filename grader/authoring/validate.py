"""`grader validate`: the self-audit of every exercise.

The answer key and every variant must get full marks; every mutant must lose points; trivial
answers (mutants named `trivial_*.py`: zeros, an identity, a constant) score at most
TRIVIAL_SHARE of the maximum, none of it from constraint checks alone, and the untouched
starter scores 0. Every hidden check must catch at least one mutant that passes every visible
check (what it exists for: the visible ones leave that mistake open), or say in its
`rationale:` why it has none. Every rule the exercise
states (its `rules:`) and every principle the grader applies to it (PRINCIPLES) needs a mutant
that says "Breaks the rule ID.", that the rule's checks catch and that fails no check observing
none of the rules it names (it breaks only what it says); every stated rule is in the starter's
docstring (grader.authoring.stating). The data (Audit rows) is
separate from the table the command line prints.
"""

from __future__ import annotations

import ast
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.authoring import answerfree
from grader.authoring.stating import principles
from grader.checks import effects
from grader.grading.grade import grade_exercise, is_constraint
from grader.loader.config import Config
from grader.outcomes.results import ExerciseResult
from grader.sandbox.client import Sandbox
from grader.specs.model import Exercise

TRIVIAL_SHARE = 0.10
"""The most a trivial answer may score, as a share of the exercise's max_score."""
TRIVIAL_PREFIX = "trivial_"
HIDDEN_ONLY = re.compile(r"Only the hidden check (\w+) catches it")
"""What a mutant's docstring says when only that hidden check catches it."""
BREAKS = re.compile(r"Breaks the rule (\w+)")
"""What a mutant's docstring says of the rule (or principle) it breaks."""

GUIDE = {"topics": 1, "hidden checks": 1, "variants": 2, "mutants": 6}
"""What docs/authoring.md asks of every exercise (`new` writes as many): validate warns below it
and fails only below one variant, one mutant and one trivial answer (Audit.complete)."""

PRINCIPLES = {
    "global_modes": "every call leaves grad mode, anomaly detection, the default dtype, "
    "inference mode and deterministic algorithms as it found them",
    "caller_objects": "every call leaves the caller's objects (tensors, their .grad and flags, "
    "the tensors inside lists and dicts, modules) as they were, except what it may change",
    "layouts": "tensor arguments arrive contiguous, transposed or strided, and a function "
    "handles each",
    "starting_states": "tensor arguments also arrive already requiring grad with an old .grad, "
    "and a function handles them (and leaves them) as such",
}
"""What the grader observes by default for every exercise (grader.checks.effects,
grader.specs.strategies.LAYOUTS), each a rule validate wants a mutant for where it applies."""


@dataclass
class Trial:
    role: str
    """key, variant, mutant, trivial (a mutant named trivial_*.py) or starter."""
    file: str
    result: ExerciseResult
    docstring: str | None = None
    """The file's module docstring (a mutant's says what mistake it makes)."""
    constraints: frozenset[str] = frozenset()
    """The ids of the exercise's constraint checks (grading.constraints.is_constraint)."""

    @property
    def ok(self) -> bool:
        score, top = self.result.score, self.result.max_score
        if self.result.status == "missing":
            return False
        if self.role in ("key", "variant"):
            return self.result.status == "passed" and score == top
        if self.role == "trivial":
            return score <= TRIVIAL_SHARE * top + 1e-9 and not self.unearned
        if self.role == "starter":
            return score == 0
        return score < top

    @property
    def unearned(self) -> list[str]:
        """Constraint checks that gave points although no value check (no check that is not a
        constraint) did: what a trivial answer must never get, however few points."""
        earned = self.earned_by
        if any(c not in self.constraints for c in earned):
            return []
        return [c for c in earned if c in self.constraints]

    @property
    def limit(self) -> str:
        """What this role must score, in words (for the table)."""
        top = self.result.max_score
        return {
            "key": f"= {top:g}",
            "variant": f"= {top:g}",
            "mutant": f"< {top:g}",
            "trivial": f"<= {TRIVIAL_SHARE * top:g}",
            "starter": "= 0",
        }[self.role]

    @property
    def caught_by(self) -> list[str]:
        return [c.id for c in self.result.checks if c.status != "passed"]

    @property
    def earned_by(self) -> list[str]:
        """The checks that gave points (what let a trivial answer or a starter score)."""
        return [c.id for c in self.result.checks if c.points > 0 and not c.bonus]


@dataclass
class Audit:
    exercise: Exercise
    trials: list[Trial] = field(default_factory=list)
    keys: list = field(default_factory=list)
    """The answer key's expressions (grader.authoring.answerfree) no report may show."""
    level: str = "mistake"
    """The exercise's feedback level: at `recipe` a hint shows its recipe by design."""
    sources: dict = field(default_factory=dict)
    """Each trial's source (by Trial.file): what a report may quote as the student's own."""

    def count(self, role: str) -> tuple[int, int]:
        rows = [t for t in self.trials if t.role == role]
        return sum(t.ok for t in rows), len(rows)

    @property
    def complete(self) -> bool:
        """At least one variant, one mutant and one trivial answer to audit."""
        return all(self.count(r)[1] >= 1 for r in ("variant", "mutant", "trivial"))

    def below_guide(self) -> list[str]:
        """What the exercise has fewer of than the guide asks (GUIDE), in words: a warning."""
        have = {
            "topics": len(self.exercise.topics),
            "hidden checks": sum(c.hidden for c in self.exercise.checks),
            "variants": self.count("variant")[1],
            "mutants": self.count("mutant")[1] + self.count("trivial")[1],
        }
        return [f"{have[k]} {k} (the guide asks for {n})" for k, n in GUIDE.items() if have[k] < n]

    def hidden_catches(self) -> dict[str, list[str]]:
        """Per hidden check: the mutants (trivial ones too) that pass every visible check and
        fail this one."""
        out: dict[str, list[str]] = {c.id: [] for c in self.exercise.checks if c.hidden}
        for t in self.trials:
            if t.role not in ("mutant", "trivial") or t.result.status == "missing":
                continue
            rows = t.result.checks
            if not rows or any(c.status != "passed" for c in rows if not c.hidden and not c.bonus):
                continue
            for c in rows:
                if c.hidden and c.status != "passed" and c.id in out:
                    out[c.id].append(t.file)
        return out

    def mislabeled(self) -> list[str]:
        """Mutants whose docstring's claim "Only the hidden check ID catches it" (HIDDEN_ONLY)
        is not what grading shows: a claim that does not hold, or a mutant only hidden checks
        catch that does not say so (tests grade visible checks and skip the ones that say it)."""
        catches = self.hidden_catches()
        caught = {f for files in catches.values() for f in files}
        out = []
        for t in self.trials:
            if t.role not in ("mutant", "trivial") or t.result.status == "missing":
                continue
            claim = HIDDEN_ONLY.search(t.docstring or "")
            if claim is None and t.file in caught:
                out.append(
                    f"{t.file}: only a hidden check catches it; say so in its docstring "
                    '("Only the hidden check ID catches it.")'
                )
            elif claim is not None and t.file not in catches.get(claim.group(1), []):
                out.append(
                    f"{t.file}: its docstring says only the hidden check "
                    f"{claim.group(1)} catches it, but grading shows otherwise"
                )
        return out

    def unjustified_hidden(self) -> list[str]:
        """Hidden checks that catch no mutant the visible ones miss and say no rationale."""
        reasons = {c.id: c.rationale for c in self.exercise.checks if c.hidden}
        return [
            cid
            for cid, caught in self.hidden_catches().items()
            if not caught and not reasons.get(cid)
        ]

    def rules(self) -> dict[str, str]:
        """The exercise's stated rules and the principles that apply to it, id -> text."""
        out = {r: PRINCIPLES[r] for r in principles(self.exercise)}
        out.update({r: t.en for r, t in self.exercise.rules.items()})
        return out

    def breaks(self, trial: Trial, rule: str) -> bool:
        """Whether grading shows this trial breaking the rule: the rule's checks catch it."""
        rows = [c for c in trial.result.checks if c.status != "passed"]
        if rule == "global_modes":
            return any((c.cause or "").startswith(effects.MODES_CAUSE + ":") for c in rows)
        if rule == "caller_objects":
            return any((c.cause or "").startswith(effects.CALLER_CAUSE + ":") for c in rows)
        if rule in ("layouts", "starting_states"):
            return trial.result.score < trial.result.max_score
        observers = {c.id for c in self.exercise.checks if rule in c.rules}
        return any(c.id in observers for c in rows)

    def rule_breakers(self, alone: bool = True) -> dict[str, list[str]]:
        """Per rule: the mutants that say they break it and do, and (alone) break nothing else:
        every check they fail observes a rule they name (Audit.others), so the rule's own checks
        are seen catching it."""
        out: dict[str, list[str]] = {r: [] for r in self.rules()}
        for t in self.trials:
            if t.role not in ("mutant", "trivial") or t.result.status == "missing":
                continue
            for rule in BREAKS.findall(t.docstring or ""):
                if rule in out and self.breaks(t, rule) and not (alone and self.others(t)):
                    out[rule].append(t.file)
        return out

    def others(self, trial: Trial) -> list[str]:
        """The checks a mutant fails that observe none of the rules its docstring names (their
        `rules:`; a principle by the cause its failures carry): [] when it breaks only what it
        says it breaks."""
        claims = set(BREAKS.findall(trial.docstring or ""))
        spec = {c.id: set(c.rules) for c in self.exercise.checks}
        failed = [c for c in trial.result.checks if c.status not in ("passed", "skipped")]
        # One failure (an exception, say) blocks every check of its function with one cause:
        # where a check observing a named rule shows it, the others it blocks are that failure.
        shared = {c.cause for c in failed if c.cause and claims & spec.get(c.id, set())}
        # A forbidden call the rule's forbidden_api check names fails, at run time, every check
        # that calls the function (cause forbidden:API:FUNCTION): the same failure.
        kinds = {c.id: c.kind for c in self.exercise.checks}
        trapped = any(
            kinds.get(c.id) == "forbidden_api" and claims & spec.get(c.id, set()) for c in failed
        )
        out = []
        for c in failed:
            if c.bonus:
                continue
            cause = c.cause or ""
            if (
                claims & spec.get(c.id, set())
                or cause in shared
                or (trapped and cause.startswith("forbidden:"))
                or "layouts" in claims
                or "starting_states" in claims
                or ("global_modes" in claims and cause.startswith(effects.MODES_CAUSE + ":"))
                or ("caller_objects" in claims and cause.startswith(effects.CALLER_CAUSE + ":"))
            ):
                continue
            out.append(c.id)
        return out

    def caught_for(self, trial: Trial, rule: str) -> list[str]:
        """The checks that catch a mutant breaking `rule`: those observing it that it fails."""
        if rule in PRINCIPLES:
            return trial.caught_by
        observers = {c.id for c in self.exercise.checks if rule in c.rules}
        return [c for c in trial.caught_by if c in observers]

    def crowded(self) -> dict[str, list[tuple[str, list[str]]]]:
        """Per stated rule no mutant breaks alone: the mutants that break it among other
        things, each with the checks it fails that observe none of the rules it names."""
        alone = self.rule_breakers()
        out: dict[str, list[tuple[str, list[str]]]] = {}
        for rule, files in self.rule_breakers(alone=False).items():
            if alone.get(rule) or rule not in self.exercise.rules:
                continue
            trials = {t.file: t for t in self.trials}
            out[rule] = [(f, self.others(trials[f])) for f in files]
        return out

    def unstated(self) -> list[str]:
        """Rules of the spec its starter's docstring does not state (grader.authoring.stating):
        a rule costs a point only where the student was told it. These fail the audit."""
        from grader.authoring import stating

        return stating.unstated(self.exercise)

    def misclaimed(self) -> list[str]:
        """Mutants that say they break a rule the exercise does not have, or that its checks
        do not catch breaking it."""
        rules = self.rules()
        out = []
        for t in self.trials:
            if t.role not in ("mutant", "trivial") or t.result.status == "missing":
                continue
            for rule in BREAKS.findall(t.docstring or ""):
                if rule not in rules:
                    out.append(
                        f"{t.file}: says it breaks the rule {rule}, which {self.exercise.id} "
                        f"does not have (its rules: {', '.join(sorted(rules))})"
                    )
                elif not self.breaks(t, rule):
                    out.append(
                        f"{t.file}: says it breaks the rule {rule}, but no check observing "
                        "that rule catches it"
                    )
        return out

    def unbroken_rules(self) -> list[str]:
        """Stated rules (the spec's `rules:`) no mutant is shown to break: a rule no check is
        seen to observe. These fail the audit."""
        return [
            r
            for r, files in self.rule_breakers().items()
            if not files and r in self.exercise.rules
        ]

    def answer_leaks(self) -> list[str]:
        """Each text a wrong answer's report shows (a message, or a hint shown at once) that
        holds an expression of the answer key, with where it comes from and the fix. These fail
        the audit: below the `recipe` level a message says what is wrong and where, never the
        code that fixes it."""
        if self.level == "recipe":
            return []
        out = []
        for t in self.trials:
            if t.role in ("key", "variant"):
                continue
            for leak in answerfree.leaks(t.result, self.keys, self.sources.get(t.file, "")):
                out.append(
                    f"{t.file}: {leak.where} shows the answer key's `{leak.expression}`; say "
                    "what is wrong and where, and move the formula into the check's `hint:` "
                    "(kept back until the student asks)"
                )
        return out

    def unshown_principles(self) -> list[str]:
        """Principles that apply but that no mutant of this exercise is shown to break yet: the
        grader judges them all the same; validate reports them without failing (0.3.0 brings
        the mutants exercise by exercise)."""
        return [
            r
            for r, files in self.rule_breakers().items()
            if not files and r not in self.exercise.rules
        ]

    @property
    def ok(self) -> bool:
        return (
            all(t.ok for t in self.trials)
            and self.complete
            and not self.unjustified_hidden()
            and not self.mislabeled()
            and not self.misclaimed()
            and not self.unbroken_rules()
            and not self.unstated()
            and not self.answer_leaks()
        )


def notebook_miss(exercise: Exercise) -> str | None:
    """Why the exercise's notebook starter (notebooks/<id>.ipynb beside exercises/, what Colab
    students get) is not the one its .py starter makes, with the command that writes it; None
    when it is current (or the exercise has no .py starter to make one from)."""
    from grader.submissions import notebook

    py = exercise.path.parent / exercise.file
    if not py.is_file():
        return None
    root = exercise.path.parent.parent.parent
    target = root / notebook.FOLDER / f"{exercise.id}{notebook.SUFFIX}"
    why = notebook.stale(py, target, exercise.id)
    if why is None:
        return None
    return (
        f"{notebook.FOLDER}/{target.name} {why}: the notebook starter (Jupyter, Colab) is made "
        f"from exercises/{exercise.id}/{exercise.file}; run `{notebook.COMMAND} {exercise.id}` "
        "and commit it"
    )


def grade_file(exercise, file: Path, config, sandbox) -> ExerciseResult:
    tmp = Path(tempfile.mkdtemp(prefix="grader-validate-"))
    try:
        shutil.copyfile(file, tmp / exercise.file)
        return grade_exercise(
            exercise=exercise,
            submission_dir=tmp,
            config=config,
            sandbox=sandbox,
            include_hidden=True,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def audit(
    *, exercise: Exercise, solutions: Path, config: Config, sandbox: Sandbox, on_trial=None
) -> Audit:
    out = Audit(exercise, level=config.feedback_for(exercise).level)
    out.keys = answerfree.answer_key(exercise, solutions)
    key = solutions / exercise.file
    plan = [("key", key)]
    plan += [("variant", p) for p in sorted((solutions / "variants" / exercise.id).glob("*.py"))]
    for p in sorted((solutions / "mutants" / exercise.id).glob("*.py")):
        plan.append(("trivial" if p.name.startswith(TRIVIAL_PREFIX) else "mutant", p))
    plan.append(("starter", exercise.path.parent / exercise.file))
    constraints = frozenset(c.id for c in exercise.checks if is_constraint(c))
    for role, path in plan:
        if not path.exists():
            result = ExerciseResult(
                id=exercise.id, title=exercise.title, status="missing", checks=[]
            )
        else:
            result = grade_file(exercise, path, config, sandbox)
        trial = Trial(role, _shown(path, solutions), result, _docstring(path), constraints)
        if path.exists():
            out.sources[trial.file] = path.read_text(encoding="utf-8", errors="replace")
        out.trials.append(trial)
        if on_trial:
            on_trial(trial)
    return out


def miss_reason(trial: Trial, lang: str) -> str:
    """Why a trial missed, in one line per cause: the exercise's own message (a file that
    cannot be read or imported) and every check that did not pass; for a mutant, that nothing
    caught it."""
    r = trial.result
    if trial.role == "mutant":
        return (
            "got full marks: no check catches this mutant; add or tighten a check that "
            "tells it apart from the answer key"
        )
    if trial.role == "trivial" and trial.unearned:
        return (
            f"scored {r.score:g}/{r.max_score:g} from constraint checks alone ("
            + ", ".join(trial.unearned)
            + "), with no value check passed: a constraint must count only once a value "
            "check passes (grading.constraints.apply_constraints)"
        )
    if trial.role in ("trivial", "starter") and r.status != "missing":
        return (
            f"scored {r.score:g}/{r.max_score:g} (must be {trial.limit}); points from: "
            + (", ".join(trial.earned_by) or "none")
            + "; make those checks count only once a value check passes (constraint)"
        )
    if r.status == "missing":
        return "file not found"
    reasons = []
    if r.message is not None:
        reasons.append(f"{r.status}: {r.message.get(lang)}")
    for c in r.checks:
        if (
            c.status != "passed"
            and not c.bonus
            and not (r.message is not None and c.message is None)
        ):
            text = c.message.get(lang) if c.message is not None else ""
            reasons.append(f"{c.id} {c.status}" + (f": {text}" if text else ""))
    return "; ".join(" ".join(x.split()) for x in reasons) or f"status {r.status}"


def _docstring(path: Path) -> str | None:
    try:
        return ast.get_docstring(ast.parse(Path(path).read_text(encoding="utf-8")))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


def _shown(path: Path, solutions: Path) -> str:
    """The path from the project root (solutions' parent), or its last three parts."""
    path, root = Path(path).resolve(), Path(solutions).resolve().parent
    return str(path.relative_to(root) if path.is_relative_to(root) else Path(*path.parts[-3:]))

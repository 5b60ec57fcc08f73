"""Exercise specs (exercises/<id>/exercise.yaml): the model, plain frozen data.

A spec says what the student writes (entry points in one file), what it is compared with
(reference expressions evaluated by torch in the grader), and the checks with their points.
Reading and validating exercise.yaml into this model is grader.loader.specfile's work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.common.yamlfile import Node

FORMAT = 1
DTYPES = ("float16", "bfloat16", "float32", "float64")


@dataclass(frozen=True)
class Text:
    """A text in both of the course's languages."""

    id: str
    en: str

    def get(self, lang: str) -> str:
        return self.en if lang == "en" else self.id


FEEDBACK_LEVELS = ("values", "mistake", "recipe")
"""What a failed check shows, from least to most (Feedback.level)."""


@dataclass(frozen=True)
class Feedback:
    """What a failed check shows a student (config.yaml `feedback:`, an exercise's own
    `feedback:` overriding it key by key). The failing input and the values (the student's and
    torch's) are always shown."""

    level: str = "mistake"
    """values: the input and the values only, no mistake named; mistake (the default): and
    what is wrong and where (the named mistake), its hint (the formula or recipe) kept back
    until the student asks for it (`grader hint ID`) or has failed `hints_after` runs; recipe:
    the hint too, at once."""
    hints_after: int | None = 3
    """A kept-back hint is shown in the report once the student's own runs (counted in their
    working copy, never for a grade) have failed the exercise this many times; None: only on
    request."""


@dataclass(frozen=True)
class CheckHint(Text):
    """A check's hint with the premise it is for (`hint: {when: ...}` in the spec): shown only
    where the premise holds, so "runs row by row over dim=-1" is never said to code that already
    uses dim=-1. Empty fields ask nothing."""

    source_lacks: str = ""
    """A regular expression the student's source must not match (what the hint tells to do)."""
    source_has: str = ""
    """A regular expression the student's source must match."""
    mistakes: tuple[str, ...] = ()
    """The failure must be named as one of these mistakes."""
    causes: tuple[str, ...] = ()
    """The failure's cause must start with one of these ("raised:", "raised:RuntimeError")."""

    def holds(self, source: str | None, cause: str | None, mistake: str | None) -> bool:
        import re

        if self.mistakes and mistake not in self.mistakes:
            return False
        if self.causes and not (cause or "").startswith(self.causes):
            return False
        if source is None:
            return not (self.source_has or self.source_lacks)
        if self.source_lacks and re.search(self.source_lacks, source):
            return False
        return not self.source_has or re.search(self.source_has, source) is not None

    def text(self) -> Text:
        return Text(id=self.id, en=self.en)


@dataclass(frozen=True)
class Hint(Text):
    """One of an exercise's hints, shown one at a time by `grader hint`."""

    after_failures: int = 0
    """Shown only once the student's runs have failed this exercise this many times."""
    checks: tuple[str, ...] = ()
    """Ids of the checks this hint helps with: a failed one names it."""


@dataclass(frozen=True)
class TensorArg:
    """A tensor input drawn by hypothesis."""

    name: str
    shape: object
    """"any" (0 to 3 dims, sides 1 to 4; 0 too with `empty`), or a tuple of dimension names and
    fixed sizes."""
    low: float = -5.0
    high: float = 5.0
    dtype: str | None = None
    """None: the check's dtype."""
    like: str | None = None
    """Same shape as this other argument (an upstream gradient, say)."""
    contiguous: bool = False
    """False (the default): draw contiguous, transposed and strided layouts (strategies.LAYOUTS),
    as real callers pass them; True: contiguous only (the instructions must say so)."""
    requires_grad: bool = False
    """Sent as a leaf that requires grad."""
    empty: bool = False
    """`shape: any` also draws empty tensors (a side of 0): only where the instructions say what
    an empty input must give."""
    untracked: bool = False
    """False (the default): where the kind hands the function its arguments as the caller holds
    them (Kind.starting_states), also draw this one already requiring grad with an old .grad
    (strategies.STATES); True: never (the instructions must say the function is only given
    tensors that do not require grad)."""


@dataclass(frozen=True)
class Edge:
    """One of a check's `edges:`: an example drawn under every seed, first (a tie, a zero, a
    subnormal, equal values). Arguments it does not name are filled in, the same every time."""

    values: dict
    """Argument name -> a number (a 0-d tensor or a float argument) or nested lists of numbers."""
    dtype: str | None = None
    """The dtype of its tensors; None: each of the check's dtypes in turn."""


@dataclass(frozen=True)
class FloatArg:
    name: str
    low: float
    high: float


@dataclass(frozen=True)
class Reference:
    """A function of named arguments, as a torch expression; the parent evaluates it."""

    name: str
    args: tuple[str, ...]
    expr: str
    code: object = field(compare=False, repr=False)
    line: int | None = field(default=None, compare=False)
    """Where `expr` is in the spec, for errors found when it is evaluated."""


@dataclass(frozen=True)
class Expect:
    """What the student's function must return, computed from a reference."""

    of: str
    grad: bool
    """True: gradients of the reference (autograd); False: its value."""
    wrt: object = None
    """For gradients: an argument name (a tensor), a list (a tuple) or a mapping (a dict)."""
    upstream: str | None = None
    """For gradients of non-scalar outputs: the argument holding the upstream gradient."""


@dataclass(frozen=True)
class Check:
    id: str
    kind: str
    title: Text
    points: float
    function: str | None
    args: tuple
    expect: Expect | None
    hint: Text | None
    hidden: bool
    """Runs only in batch mode (teachers); students see how many exist."""
    bonus: bool
    """Reported separately: its points are not part of the exercise's max_score."""
    examples: int | None
    dtypes: tuple[str, ...]
    options: dict
    node: Node = field(compare=False, repr=False)
    rationale: str | None = None
    """Why a hidden check exists where no mutant needs it (validate shows it)."""
    recorded: bool = False
    """Judged from recorded reference values (a students' release, grader.grading.recorded), so the
    spec holds no reference code for it."""
    constraint: bool = False
    """Like a constraint kind (see checks.base.Kind.constraint): a property a trivial answer or
    the untouched starter also has, so it earns points only once the function passes a check
    that is not a constraint."""
    may_change: tuple[str, ...] = ()
    """The arguments (or a scenario's objects) the function may change; every other object the
    caller passed must stay as it was (grader.checks.effects)."""
    rules: tuple[str, ...] = ()
    """The stated rules (Exercise.rules) this check observes."""
    edges: tuple = ()
    """The examples (Edge) that are the point of the check, part of every draw whatever the
    seed (grader.specs.strategies.explicit)."""

    def arg(self, name: str):
        return next(a for a in self.args if a.name == name)


@dataclass(frozen=True)
class Exercise:
    id: str
    file: str
    title: Text
    instructions: Text
    topics: tuple[str, ...]
    hints: tuple[Hint, ...]
    references: dict
    dims: dict
    checks: tuple[Check, ...]
    path: Path
    spec_hash: str
    tolerances: dict
    hidden_checks: int = 0
    """Hidden checks the teacher runs that this spec no longer holds (a student's release copy:
    grader/release.py removes them and writes their number as `hidden_checks:`)."""
    recorded: Path | None = None
    """A students' release: the file beside the spec holding each check's examples and what the
    reference observed on them (grader.grading.recorded); the spec then holds no reference code."""
    plugin: Path | None = None
    """The exercise's plugin folder (exercises/<id>/plugin/, grader.common.plugins), when its
    checks need code of their own: the worker imports its probes before the student's file."""
    plugin_digest: str = ""
    """A hash of the plugin's code: examples and kept verdicts drawn with other code are not
    reused (spec_hash stays the spec's own bytes, as results record it)."""
    rules: dict = field(default_factory=dict)
    """The rules the instructions state, by id (a Text each); the checks that observe each name it
    in their `rules:`, and validate wants a mutant that breaks each (grader.authoring.validate)."""
    handout: tuple[str, ...] = ()
    """Files beside the starter the release hands out too (`handout:`, paths inside the
    exercise's folder); nothing else of the folder is released (grader.release.build)."""
    feedback: dict = field(default_factory=dict)
    """The exercise's own `feedback:` keys (Feedback's fields), over config.yaml's."""
    starter_digest: str = ""
    """A students' release: the code digest of the starter as released (`starter_digest:`,
    grader.submissions.answer), since there the starter's file is the student's own; empty in
    the teacher's tree, where the starter beside the spec is read instead."""

    @property
    def module(self) -> str:
        return Path(self.file).stem

    @property
    def max_points(self) -> float:
        return sum(c.points for c in self.checks if not c.bonus)

    def trap_patterns(self) -> list[str]:
        return sorted({a for c in self.checks for a in c.options.get("apis", ())})

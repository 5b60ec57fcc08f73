"""config.yaml: the grader's defaults, each validated with an error that names its key."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path

from grader.common import yamlfile
from grader.common.errors import GraderError, SpecError
from grader.common.yamlfile import Node, NodeList
from grader.specs.model import FEEDBACK_LEVELS, Feedback, Text

LANGUAGES = ("id", "en")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|KB|MB|GB)?\s*$")
_UNITS = {
    None: 1,
    "B": 1,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
}


_TOPIC_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Topic:
    """One topic of the course (config.yaml `topics:`): what a spec's `topics:` may name."""

    id: str
    title: Text
    description: str = ""


@dataclass(frozen=True)
class Config:
    language: str = "id"
    """Language of titles, feedback and hints: id or en."""
    seed: int = 20261202
    """Seed for hypothesis, so that every student sees the same examples (public: the students'
    release records its examples with it)."""
    grading_seed: int | None = None
    """Seed `batch` and the Gradescope autograder draw with: the teacher's, never in a release,
    so that the grade is decided on inputs no student saw (GRADER_GRADING_SEED overrides it)."""
    examples: int = 60
    """Examples hypothesis draws per check."""
    time_per_call: float = 5.0
    """Seconds one call of a student's function (or the file's import) may take."""
    time_per_exercise: float = 120.0
    """Seconds all checks of one exercise may take together."""
    memory_per_worker: int = 2 * 2**30
    """Bytes of address space one worker may use."""
    output_cap: int = 2**20
    """Bytes a worker may print."""
    seed_source: str = "seed"
    """Where `seed` came from (recorded in results); not a key of config.yaml."""
    gradebook: Path | None = None
    """SQLite file where `batch` records every run (None: no gradebook); relative paths are
    relative to the config file."""
    deadline: str | dict[str, str] | None = None
    """`batch`'s deadline (ISO 8601 with its offset, 2026-12-10T23:59+07:00; --deadline
    overrides it): a submission that is a git repository is graded as of it. A mapping gives
    exercises due on other days their own ({<id>: ..., default: ...})."""
    late_policy: str = "none"
    """none: grade the last commit before the deadline; penalty: the latest, less
    late_penalty_per_day per day late; latest: the latest, flagged late."""
    late_penalty_per_day: float = 0.0
    """The share of the score a penalty takes per day (or part of one) late, e.g. 0.1."""
    shrink_budget: int = 200
    """Calls `batch` may make shrinking a failing check, counted from its first failing call:
    then it reports the smallest failure found so far, marked `shrink_cut` in results.json. The
    verdict never depends on it; a student's `check` and `validate` shrink fully."""
    bounded_shrink: bool = False
    """Whether this run stops shrinking at shrink_budget (`batch` sets it); not a key of
    config.yaml."""
    feedback: Feedback = Feedback()
    """What a failed check shows (`feedback:`, grader.specs.model.Feedback); an exercise's own
    `feedback:` overrides it key by key (feedback_for)."""
    topics: tuple[Topic, ...] | None = None
    """The course's topics (`topics:`), the only ones a spec may name; None where the config
    names none (then a spec may name any, as before topics were data: an older config keeps
    loading its specs, and the core names no course's topics)."""

    @property
    def topic_ids(self) -> tuple[str, ...] | None:
        """The ids a spec's `topics:` may use: the config's; None: any."""
        return tuple(t.id for t in self.topics) if self.topics is not None else None

    def feedback_for(self, exercise) -> Feedback:
        """The feedback level of one exercise: the config's, with the exercise's own keys."""
        return replace(self.feedback, **getattr(exercise, "feedback", {}))

    def with_overrides(self, **changes) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def parse_size(text) -> int | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text
    match = _SIZE.match(str(text))
    if not match:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def load(path: Path) -> Config:
    node = yamlfile.load(path)
    node.reject_unknown({f.name for f in fields(Config)} - {"seed_source", "bounded_shrink"})
    values = {}
    if "language" in node:
        lang = node.get_typed("language", str)
        if lang not in LANGUAGES:
            raise node.error("language", f"expected id or en, got {lang!r}")
        values["language"] = lang
    if "seed" in node:
        values["seed"] = node.get_typed("seed", int)
    if node.get("grading_seed") is not None:
        values["grading_seed"] = node.get_typed("grading_seed", int)
    if "examples" in node:
        values["examples"] = _positive(node, "examples", int)
    if "shrink_budget" in node:
        values["shrink_budget"] = _shrink_budget(node)
    for key in ("time_per_call", "time_per_exercise"):
        if key in node:
            values[key] = float(_positive(node, key, float))
    for key in ("memory_per_worker", "output_cap"):
        if key in node:
            size = parse_size(node[key])
            if not size or size <= 0:
                raise node.error(key, f"expected a size such as 2GiB or 512MiB, got {node[key]!r}")
            values[key] = size
    if node.get("gradebook") is not None:
        values["gradebook"] = _gradebook(node, Path(path).resolve().parent)
    if node.get("deadline") is not None:
        values["deadline"] = _deadline(node)
    if "late_policy" in node:
        policy = node.get_typed("late_policy", str)
        if policy not in LATE_POLICIES:
            raise node.error("late_policy", f"expected none, penalty or latest, got {policy!r}")
        values["late_policy"] = policy
    if "late_penalty_per_day" in node:
        share = float(node.get_typed("late_penalty_per_day", float))
        if not 0 <= share <= 1:
            raise node.error(
                "late_penalty_per_day",
                f"expected a share between 0 and 1 (0.1 is 10%), got {share}",
            )
        values["late_penalty_per_day"] = share
    if node.get("topics") is not None:
        values["topics"] = _topics(node)
    if node.get("feedback") is not None:
        values["feedback"] = Feedback(**feedback_keys(node))
    if values.get("memory_per_worker", 2**30) < 256 * 2**20:
        raise node.error("memory_per_worker", "too small for torch; use at least 256MiB")
    return Config(**values)


LATE_POLICIES = ("none", "penalty", "latest")


def feedback_keys(node) -> dict:
    """`feedback:` (in config.yaml or an exercise.yaml): a level (`feedback: mistake`) or a
    mapping {level: ..., hints_after: ...}; the keys it gives, checked, each error naming the
    key and its line."""
    value = node["feedback"]
    if isinstance(value, str):
        if value not in FEEDBACK_LEVELS:
            raise node.error("feedback", _bad_level(value))
        return {"level": value}
    inner = node.get_typed(
        "feedback", Node, what="a level (values, mistake, recipe) or {level: ..., hints_after: N}"
    )
    inner.reject_unknown({"level", "hints_after"})
    out: dict = {}
    if "level" in inner:
        level = inner.get_typed("level", str)
        if level not in FEEDBACK_LEVELS:
            raise inner.error("level", _bad_level(level))
        out["level"] = level
    if "hints_after" in inner:
        after = inner["hints_after"]
        if after is not None and (
            isinstance(after, bool) or not isinstance(after, int) or after < 0
        ):
            raise inner.error(
                "hints_after",
                "expected a whole number of failed runs (0 or more), after which a failed "
                f"check's hint is shown in the report, or null (only on request), got {after!r}",
            )
        out["hints_after"] = after
    return out


def _bad_level(level) -> str:
    return (
        f"expected one of {', '.join(FEEDBACK_LEVELS)} (values: the failing input and values "
        "only; mistake: and what is wrong and where, the recipe on request; recipe: the hint "
        f"at once), got {level!r}"
    )


def _topics(node) -> tuple[Topic, ...]:
    """`topics:`, a list of {id, title: {id, en}, description}, each id once."""
    items = node.get_typed("topics", NodeList, what="a list of topics")
    out: list[Topic] = []
    for i, item in enumerate(items):
        where = f"topics[{i}]"
        if not isinstance(item, Node):
            raise SpecError(
                node.file,
                items.where(i),
                where,
                "expected a topic: {id: ..., title: {id: ..., en: ...}, description: ...}",
            )
        item.reject_unknown({"id", "title", "description"})
        topic_id = item.get_typed("id", str)
        if not _TOPIC_ID.match(topic_id):
            raise item.error("id", f"expected lowercase letters, digits and _, got {topic_id!r}")
        if any(t.id == topic_id for t in out):
            raise item.error("id", f"the topic {topic_id!r} is listed twice; keep one")
        title = item.child("title")
        title.reject_unknown({"id", "en"})
        description = item.get_typed("description", str, "").strip()
        if "\n" in description:
            raise item.error("description", "expected one line describing the topic")
        out.append(
            Topic(
                id=topic_id,
                title=Text(
                    id=title.get_typed("id", str).strip(), en=title.get_typed("en", str).strip()
                ),
                description=description,
            )
        )
    return tuple(out)


_COURSE_TOPICS: dict = {}


def course_topics(root: Path) -> tuple[str, ...] | None:
    """The topic ids of the course in root (its config.yaml's `topics:`; None where it names
    none: any topic), remembered per file version."""
    path = Path(root) / "config.yaml"
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _COURSE_TOPICS:
        _COURSE_TOPICS[key] = load(path).topic_ids
    return _COURSE_TOPICS[key]


def _deadline(node) -> str | dict[str, str]:
    """An ISO 8601 date and time with its offset (YAML may read one as a datetime), or a
    mapping of exercise ids (and `default`, for the others) to such times."""
    value = node["deadline"]
    if isinstance(value, dict):
        inner = node.child("deadline")
        return {str(k): _time(inner, k) for k in inner}
    return _time(node, "deadline")


def _time(node, key) -> str:
    from datetime import datetime

    value = node[key]
    text = value.isoformat() if isinstance(value, datetime) else str(value)
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise node.error(
            key,
            f"expected a date and time with its UTC offset, such as 2026-12-10T23:59+07:00, "
            f"got {text!r}",
        )
    return text.strip()


def _gradebook(node, base: Path) -> Path:
    """A file path for the SQLite gradebook, relative to the config file's folder."""
    text = node.get_typed("gradebook", str, what="a file path such as grades/gradebook.sqlite")
    if not text.strip():
        raise node.error(
            "gradebook",
            "expected a file path such as grades/gradebook.sqlite, got an empty string",
        )
    path = base / Path(text.strip()).expanduser()
    if path.is_dir():
        raise node.error(
            "gradebook",
            f"{text!r} is a directory; give a file inside it, "
            f"such as {text.rstrip('/')}/gradebook.sqlite",
        )
    return path


def _shrink_budget(node) -> int:
    """`shrink_budget:` a whole number of calls, at least 1."""
    value = node["shrink_budget"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise node.error(
            "shrink_budget",
            f"expected a whole number of calls of at least 1, such as 200 (how many calls batch "
            f"may spend shrinking a failing check), got {value!r}",
        )
    return value


def _positive(node, key: str, kind):
    value = node.get_typed(key, kind)
    if value <= 0:
        raise node.error(key, f"expected a positive number, got {value!r}")
    return value


GRADING_SEED_ENV = "GRADER_GRADING_SEED"


def grading_seed(config: Config) -> tuple[int, str]:
    """(the seed a class is graded with, where it comes from): $GRADER_GRADING_SEED (a CI
    secret), else the config's grading_seed, else the public seed, which students have seen."""
    text = os.environ.get(GRADING_SEED_ENV, "").strip()
    if text:
        try:
            return int(text), f"${GRADING_SEED_ENV}"
        except ValueError:
            raise GraderError(
                f"${GRADING_SEED_ENV}: expected an integer seed, got {text[:40]!r}"
            ) from None
    if config.grading_seed is not None:
        return config.grading_seed, "grading_seed"
    return config.seed, "seed (public)"


def default_path() -> Path:
    return Path(__file__).resolve().parents[2] / "config.yaml"


def load_or_default(path: Path | None) -> Config:
    path = path or default_path()
    if not path.exists():
        if path == default_path():
            return Config()
        raise SpecError(path, None, "", "config file not found; check the --config path")
    return load(path)

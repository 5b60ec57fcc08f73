"""Reading exercise.yaml into the spec model (grader.specs.model), validated with errors that name
the file, the line and the key. Each check kind (grader.checks, and an exercise's own plugin)
validates its own options; a spec's references are tried once when it loads (grader.loader.reftrial).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from grader.common import plugins as common_plugins
from grader.common import yamlfile
from grader.common.errors import SpecError
from grader.common.yamlfile import Node, NodeList
from grader.loader import plugins
from grader.loader.edges import load_edges
from grader.specs.model import (
    DTYPES,
    FORMAT,
    Check,
    CheckHint,
    Exercise,
    Expect,
    FloatArg,
    Hint,
    Reference,
    TensorArg,
    Text,
)

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def text(node: Node, key: str, default=yamlfile._MISSING) -> Text | None:
    value = node.get_typed(key, (Node, str), default, "a mapping with id and en texts")
    if value is None or value is default:
        return value
    if isinstance(value, str):
        raise node.error(key, "give the text in both languages: `id: ...` and `en: ...`")
    value.reject_unknown({"id", "en"})
    return Text(id=value.get_typed("id", str).strip(), en=value.get_typed("en", str).strip())


HINT_PREMISES = {"source_lacks", "source_has", "mistakes", "causes"}


def check_hint(node: Node) -> Text | None:
    """A check's `hint:`, its texts and, optionally, `when:` the premise it is for
    (model.CheckHint): source_lacks / source_has (regular expressions), mistakes, causes."""
    value = node.get_typed("hint", (Node, str), None, "a mapping with id and en texts")
    if not isinstance(value, Node) or "when" not in value:
        return text(node, "hint", None)
    value.reject_unknown({"id", "en", "when"})
    when = value.get_typed("when", Node)
    when.reject_unknown(HINT_PREMISES)
    premise = {}
    for key in ("source_lacks", "source_has"):
        pattern = when.get_typed(key, str, "")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise when.error(key, f"not a regular expression: {exc}") from None
        premise[key] = pattern
    for key in ("mistakes", "causes"):
        items = when.get_typed(key, NodeList, NodeList())
        if any(not isinstance(i, str) for i in items):
            raise when.error(key, "expected a list of names")
        premise[key] = tuple(items)
    return CheckHint(
        id=value.get_typed("id", str).strip(), en=value.get_typed("en", str).strip(), **premise
    )


def _name(node, key, value: str, what: str) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise node.error(key, f"expected a Python identifier for {what}, got {value!r}")
    return value


def load_references(node: Node) -> dict:
    refs = {}
    for name, body in node.items():
        _name(node, name, name, "a reference name")
        if not isinstance(body, Node):
            raise node.error(name, "expected a mapping with `args` and `expr`")
        body.reject_unknown({"args", "expr"})
        args = body.get_typed("args", NodeList)
        for i, a in enumerate(args):
            if not isinstance(a, str) or not _NAME.match(a):
                raise SpecError(
                    body.file,
                    args.where(i),
                    f"{body.path}.args[{i}]",
                    f"expected an argument name, got {a!r}",
                )
        expr = body.get_typed("expr", str)
        try:
            code = compile(expr.strip(), f"{body.file}:{body.where('expr')}", "eval")
        except SyntaxError as exc:
            raise body.error("expr", f"not a Python expression: {exc.msg}") from None
        refs[name] = Reference(
            name=name, args=tuple(args), expr=expr.strip(), code=code, line=body.where("expr")
        )
    return refs


def load_dims(node: Node) -> dict:
    dims = {}
    for name, rng in node.items():
        if not (
            isinstance(rng, NodeList)
            and len(rng) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in rng)
            and 0 <= rng[0] <= rng[1]
        ):
            raise node.error(name, f"expected [min, max] sizes such as [1, 5], got {rng!r}")
        dims[name] = (rng[0], rng[1])
    return dims


def load_arg(node: Node, name: str, dims: dict):
    body = node[name]
    if not isinstance(body, Node):
        raise node.error(name, "expected a mapping such as {shape: [N, D], low: -3, high: 3}")
    if "float" in body:
        body.reject_unknown({"float"})
        rng = body["float"]
        if not (isinstance(rng, NodeList) and len(rng) == 2):
            raise body.error("float", "expected [low, high]")
        return FloatArg(name=name, low=float(rng[0]), high=float(rng[1]))
    body.reject_unknown(
        {
            "shape",
            "low",
            "high",
            "dtype",
            "like",
            "contiguous",
            "requires_grad",
            "empty",
            "untracked",
        }
    )
    like = body.get_typed("like", str, None)
    shape = body.get_typed("shape", (str, NodeList), "any" if like is None else None)
    if isinstance(shape, str) and shape != "any":
        raise body.error("shape", f"expected `any` or a list such as [N, D], got {shape!r}")
    if isinstance(shape, NodeList):
        for i, d in enumerate(shape):
            if not ((isinstance(d, int) and not isinstance(d, bool) and d >= 0) or d in dims):
                known = ", ".join(sorted(dims)) or "none defined"
                raise SpecError(
                    body.file,
                    shape.where(i),
                    f"{body.path}.shape[{i}]",
                    f"{d!r} is neither a size nor a dimension in `dims` ({known})",
                )
        shape = tuple(shape)
    dtype = body.get_typed("dtype", str, None)
    if dtype is not None and dtype not in DTYPES:
        raise body.error("dtype", f"expected one of {', '.join(DTYPES)}, got {dtype!r}")
    low = float(body.get_typed("low", float, -5.0))
    high = float(body.get_typed("high", float, 5.0))
    if low > high:
        raise body.error("low", f"low ({low}) is above high ({high})")
    return TensorArg(
        name=name,
        shape=shape,
        low=low,
        high=high,
        dtype=dtype,
        like=like,
        contiguous=body.get_typed("contiguous", bool, False),
        requires_grad=body.get_typed("requires_grad", bool, False),
        empty=body.get_typed("empty", bool, False),
        untracked=body.get_typed("untracked", bool, False),
    )


def load_expect(node: Node, refs: dict, arg_names, recorded: bool = False) -> Expect:
    body = node.child("expect")
    body.reject_unknown({"value_of", "grad_of", "wrt", "upstream"})
    grad = "grad_of" in body
    if grad == ("value_of" in body):
        raise node.error("expect", "give exactly one of `value_of: REF` or `grad_of: REF`")
    of = body.get_typed("grad_of" if grad else "value_of", str)
    if recorded and of not in refs:  # a release: the reference is recorded data, not code
        refs = {of: Reference(name=of, args=tuple(arg_names), expr="", code=None)}
    if of not in refs:
        known = ", ".join(sorted(refs)) or "none defined"
        raise body.error(
            "grad_of" if grad else "value_of",
            f"unknown reference {of!r}; defined in `references`: {known}",
        )
    missing = [a for a in refs[of].args if a not in arg_names]
    if missing:
        raise node.error(
            "expect",
            f"reference {of} needs argument(s) {', '.join(missing)}, "
            "which this check's `args` do not define",
        )
    wrt = body.get("wrt")
    if grad:
        if wrt is None:
            raise body.error("grad_of", "gradients need `wrt:` (a name, a list or a mapping)")
        names = (
            list(wrt.values())
            if isinstance(wrt, dict)
            else (list(wrt) if isinstance(wrt, list) else [wrt])
        )
        for n in names:
            if n not in refs[of].args:
                raise body.error("wrt", f"{n!r} is not an argument of reference {of}")
        wrt = (
            dict(wrt) if isinstance(wrt, dict) else (tuple(wrt) if isinstance(wrt, list) else wrt)
        )
    upstream = body.get_typed("upstream", str, None)
    if upstream is not None and upstream not in arg_names:
        raise body.error("upstream", f"{upstream!r} is not one of this check's args")
    return Expect(of=of, grad=grad, wrt=wrt, upstream=upstream)


def load_check(
    node: Node, refs: dict, dims: dict, default_dtype: str, recorded: bool = False
) -> Check:
    from grader.checks import KINDS

    kind_name = node.get_typed("kind", str)
    kind = KINDS.get(kind_name)
    if kind is None:
        raise node.error(
            "kind", f"unknown check kind {kind_name!r}; known: {', '.join(sorted(KINDS))}"
        )
    common = {
        "id",
        "kind",
        "title",
        "points",
        "function",
        "args",
        "expect",
        "hint",
        "hidden",
        "examples",
        "dtypes",
        "bonus",
        "constraint",
        "rationale",
        "may_change",
        "rules",
        "edges",
    }
    node.reject_unknown(common | set(kind.OPTIONS))
    check_id = node.get_typed("id", str)
    if not _ID.match(check_id):
        raise node.error("id", f"expected lowercase letters, digits and _, got {check_id!r}")
    points = node.get_typed("points", float)
    if points <= 0:
        raise node.error("points", f"expected a positive number, got {points!r}")
    args_node = node.get_typed("args", Node, None)
    args = tuple(load_arg(args_node, n, dims) for n in args_node) if args_node else ()
    names = [a.name for a in args]
    for a in args:
        if isinstance(a, TensorArg) and a.like is not None and a.like not in names:
            raise args_node[a.name].error("like", f"{a.like!r} is not one of this check's args")
    dtypes = node.get_typed("dtypes", NodeList, None)
    if dtypes is None:
        dtypes = (default_dtype,)
    for i, d in enumerate(dtypes):
        if d not in DTYPES:
            raise SpecError(
                node.file,
                dtypes.where(i),
                f"{node.path}.dtypes[{i}]",
                f"expected one of {', '.join(DTYPES)}, got {d!r}",
            )
    expect = load_expect(node, refs, names, recorded) if "expect" in node else None
    options = {key: node[key] for key in kind.OPTIONS if key in node}
    examples = node.get_typed("examples", int, None)
    check = Check(
        id=check_id,
        kind=kind_name,
        title=text(node, "title"),
        points=float(points),
        function=node.get_typed("function", str, None),
        args=args,
        expect=expect,
        hint=check_hint(node),
        hidden=node.get_typed("hidden", bool, False),
        bonus=node.get_typed("bonus", bool, False),
        examples=examples,
        dtypes=tuple(dtypes),
        options=options,
        node=node,
        constraint=node.get_typed("constraint", bool, False),
        recorded=recorded,
        rationale=node.get_typed("rationale", str, None),
        may_change=_names(node, "may_change"),
        rules=_names(node, "rules"),
        edges=load_edges(node, args, dims, tuple(dtypes)),
    )
    if check.rationale is not None and not check.hidden:
        raise node.error(
            "rationale",
            "only a hidden check takes a rationale (why no mutant needs it); remove it here",
        )
    kind.validate(check)
    return check


TOP_KEYS = {
    "format",
    "rules",
    "id",
    "file",
    "title",
    "instructions",
    "topics",
    "hints",
    "references",
    "dims",
    "dtype",
    "checks",
    "tolerances",
    "hidden_checks",
    "recorded",
    "handout",
    "starter_digest",
    "feedback",
}


def load(path: Path, root: Path | None = None, topics=None) -> Exercise:
    """Load and validate one exercise.yaml. `topics`: the ids its `topics:` may use (default:
    those of the course's config.yaml beside exercises/, grader.loader.config.course_topics)."""
    path = Path(path)
    display = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
    node = yamlfile.load(path, display)
    node.reject_unknown(TOP_KEYS)
    fmt = node.get_typed("format", int)
    if fmt != FORMAT:
        raise node.error("format", f"this grader reads format {FORMAT}, got {fmt}")
    ex_id = node.get_typed("id", str)
    if not _ID.match(ex_id):
        raise node.error("id", f"expected lowercase letters, digits and _, got {ex_id!r}")
    if ex_id != path.parent.name:
        raise node.error("id", f"must match its folder name {path.parent.name!r}")
    plugin = plugins.load(ex_id, path.parent, display)
    file = node.get_typed("file", str, f"{ex_id}.py")
    if "/" in file or not file.endswith(".py"):
        raise node.error("file", f"expected a file name ending in .py, got {file!r}")
    refs = load_references(node.child("references", Node()))
    recorded = _recorded(node, path)
    handout = _handout(node, path, file, recorded)
    dims = load_dims(node.child("dims", Node()))
    dtype = node.get_typed("dtype", str, "float64")
    if dtype not in DTYPES:
        raise node.error("dtype", f"expected one of {', '.join(DTYPES)}, got {dtype!r}")
    checks_node = node.get_typed("checks", NodeList)
    if not checks_node:
        raise node.error("checks", "an exercise needs at least one check")
    checks = []
    for i, item in enumerate(checks_node):
        if not isinstance(item, Node):
            raise SpecError(display, checks_node.where(i), f"checks[{i}]", "expected a mapping")
        checks.append(load_check(item, refs, dims, dtype, recorded is not None))
    seen = set()
    for c in checks:
        if c.id in seen:
            raise c.node.error("id", f"duplicate check id {c.id!r}")
        seen.add(c.id)
    hints_node = node.get_typed("hints", NodeList, NodeList())
    hints = []
    for i, h in enumerate(hints_node):
        if not isinstance(h, Node):
            raise SpecError(
                display,
                hints_node.where(i),
                f"hints[{i}]",
                "expected a mapping with id and en texts",
            )
        h.reject_unknown({"id", "en", "after_failures", "checks"})
        after = h.get_typed("after_failures", int, 0)
        if after < 0:
            raise h.error("after_failures", f"expected 0 or more failed runs, got {after}")
        helps = h.get_typed("checks", NodeList, NodeList())
        for j, check_id in enumerate(helps):
            if check_id not in seen:
                raise SpecError(
                    display,
                    helps.where(j),
                    f"hints[{i}].checks[{j}]",
                    f"unknown check id {check_id!r}; checks: {', '.join(sorted(seen))}",
                )
        hints.append(
            Hint(
                id=h.get_typed("id", str).strip(),
                en=h.get_typed("en", str).strip(),
                after_failures=after,
                checks=tuple(helps),
            )
        )
    topics = _topics(node, path, topics)
    tolerances = {}
    for dt, tol in node.child("tolerances", Node()).items():
        if dt not in DTYPES or not isinstance(tol, Node):
            raise node.error("tolerances", f"expected dtype: {{rtol: .., atol: ..}}, got {dt!r}")
        tol.reject_unknown({"rtol", "atol"})
        tolerances[dt] = (float(tol.get_typed("rtol", float)), float(tol.get_typed("atol", float)))
    rules = load_rules(node, checks, recorded is not None)
    spec_bytes = path.read_bytes()
    exercise = Exercise(
        id=ex_id,
        file=file,
        title=text(node, "title"),
        instructions=text(node, "instructions"),
        topics=tuple(str(t) for t in topics),
        hints=tuple(hints),
        references=refs,
        dims=dims,
        checks=tuple(checks),
        path=path,
        spec_hash=hashlib.sha256(spec_bytes).hexdigest()[:16],
        tolerances=tolerances,
        hidden_checks=_count(node, "hidden_checks"),
        recorded=recorded,
        plugin=plugin,
        plugin_digest=common_plugins.digest(plugin) if plugin else "",
        rules=rules,
        handout=handout,
        starter_digest=_starter_digest(node),
        feedback=_feedback(node),
    )
    if recorded is None:
        from grader.loader.reftrial import try_references_once

        # A typo is the author's error now, not every student's; a passed trial is remembered.
        try_references_once(exercise, display, spec_bytes)
    return exercise


def _feedback(node: Node) -> dict:
    """`feedback:`, this exercise's own keys over config.yaml's (grader.specs.model.Feedback)."""
    from grader.loader import config as config_mod

    return config_mod.feedback_keys(node) if node.get("feedback") is not None else {}


def _topics(node: Node, path: Path, allowed) -> NodeList:
    """`topics:`, each one of the course's topics (config.yaml `topics:`)."""
    from grader.loader import config as config_mod

    topics = node.get_typed("topics", NodeList, NodeList())
    if allowed is None:
        allowed = config_mod.course_topics(path.resolve().parent.parent.parent)
    for i, topic in enumerate(topics):
        if not isinstance(topic, str):
            raise SpecError(node.file, topics.where(i), f"topics[{i}]", "expected a topic id")
        if allowed is not None and topic not in allowed:
            raise SpecError(
                node.file,
                topics.where(i),
                f"topics[{i}]",
                f"unknown topic {topic!r}; the course's topics (config.yaml `topics:`): "
                f"{', '.join(allowed)}; use one of them, or add it to config.yaml's `topics:` "
                "(docs/authoring.md)",
            )
    return topics


def _recorded(node: Node, path: Path) -> Path | None:
    """The recorded data file a release's spec names (beside the spec), or None."""
    name = node.get_typed("recorded", str, None)
    if name is None:
        return None
    if "/" in name or "\\" in name or name.startswith("."):
        raise node.error("recorded", f"expected a file name beside exercise.yaml, got {name!r}")
    found = path.parent / name
    if not found.is_file():
        raise node.error(
            "recorded",
            f"{name} is missing beside this spec; it comes with the "
            "students' release (python -m grader release): get the "
            "exercise folder again from your course's repository",
        )
    return found


def _handout(node: Node, path: Path, starter: str, recorded: Path | None) -> tuple[str, ...]:
    """The files beside the starter that the release hands out too (`handout:`, paths inside
    the exercise's folder). In the teacher's spec each must be a file there; a release's spec
    (recorded) is not held to it."""
    names = node.get_typed("handout", NodeList, NodeList())
    out: list[str] = []
    for i, name in enumerate(names):
        where = (node.file, names.where(i), f"handout[{i}]")
        fix = "; fix the name in `handout:` or remove it"
        parts = name.split("/") if isinstance(name, str) else []
        if (
            not parts
            or "\\" in name
            or name.startswith("/")
            or any(p in ("", ".", "..") or p.startswith(".") for p in parts)
        ):
            raise SpecError(
                *where,
                f"expected a path inside the exercise's folder (like data/points.csv), got "
                f"{name!r}{fix}",
            )
        if parts[0] == common_plugins.FOLDER:
            raise SpecError(
                *where,
                f"{name}: the plugin's code already ships (all of it but "
                f"{common_plugins.TEACHER}, which never ships){fix}",
            )
        if name in (path.name, starter, recorded.name if recorded else None) or name in out:
            raise SpecError(*where, f"{name} is already in the release{fix}")
        found = path.parent / name
        if recorded is None and (found.is_symlink() or not found.is_file()):
            raise SpecError(
                *where,
                f"{name} does not exist in {path.parent.name}/ (or is not a plain file); "
                f"add the file there{fix}",
            )
        out.append(name)
    return tuple(out)


def _starter_digest(node: Node) -> str:
    """`starter_digest:` of a release's spec (grader.release.build writes it), checked."""
    value = node.get_typed("starter_digest", str, "")
    if value and not re.fullmatch(r"[0-9a-f]{32}", value):
        raise node.error("starter_digest", f"expected 32 hex digits, got {value!r}")
    return value


def _count(node: Node, key: str) -> int:
    value = node.get_typed(key, int, 0)
    if value < 0:
        raise node.error(key, f"expected a count of 0 or more, got {value!r}")
    return value


def discover(exercises_dir: Path, root: Path | None = None, topics=None) -> list[Exercise]:
    """Every exercise under exercises/, sorted by the order given in exercises/ORDER if any
    (`topics`: as for load)."""
    paths = sorted(Path(exercises_dir).glob("*/exercise.yaml"))
    loaded = [load(p, root, topics) for p in paths]
    order_file = Path(exercises_dir) / "ORDER"
    if order_file.exists():
        order = [line.strip() for line in order_file.read_text().splitlines() if line.strip()]
        rank = {name: i for i, name in enumerate(order)}
        loaded.sort(key=lambda e: (rank.get(e.id, len(rank)), e.id))
    return loaded


def _names(node: Node, key: str) -> tuple[str, ...]:
    """A list of names (`may_change: [params]`), or () where the key is absent."""
    items = node.get_typed(key, NodeList, None)
    if items is None:
        return ()
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise SpecError(
                node.file,
                items.where(i),
                f"{node.path}.{key}[{i}]",
                f"expected a name, got {item!r}",
            )
    return tuple(items)


def load_rules(node: Node, checks: list, released: bool) -> dict:
    """`rules:`: each rule the instructions state (id: {id: text, en: text}), observed by the
    checks that name it in their own `rules:`. Every rule needs a check, and a check names only
    rules listed here (a release, whose hidden checks are gone, checks only the latter)."""
    rules_node = node.child("rules", Node())
    rules = {}
    for rule_id in rules_node:
        if not _ID.match(str(rule_id)):
            raise rules_node.error(
                rule_id, f"expected lowercase letters, digits and _, got {rule_id!r}"
            )
        rules[str(rule_id)] = text(rules_node, rule_id)
    for c in checks:
        for rule_id in c.rules:
            if rule_id not in rules:
                known = ", ".join(sorted(rules)) or "none: add a top-level `rules:`"
                raise c.node.error("rules", f"unknown rule {rule_id!r}; rules: {known}")
    if not released:
        observed = {r for c in checks for r in c.rules}
        for rule_id in rules:
            if rule_id not in observed:
                raise rules_node.error(
                    rule_id,
                    f"no check observes the rule {rule_id!r}: add `rules: [{rule_id}]` to the "
                    "check that observes it, or take the rule out of the instructions",
                )
        for c in checks:
            method = _method_observed(c)
            if method and not c.rules:
                raise c.node.error(
                    "kind" if c.kind == "forbidden_api" else "observe",
                    f"this check observes {method}, a rule the student must be told: state it "
                    "in the top-level `rules:` (id and en, as the instructions say it) and name "
                    "it here in `rules: [RULE_ID]` (docs/authoring.md, rules and principles)",
                )
    return rules


def _method_observed(check) -> str | None:
    """What a check observes that its outcome cannot show, in words (a forbidden API, a count
    of forward passes or of a backward's work), or None: such a check costs a point only for a
    rule the spec states."""
    if check.kind == "forbidden_api":
        return "forbidden APIs"
    from grader.sandbox.probes.scenario import COUNTED

    observe = check.options.get("observe") if check.kind == "scenario" else None
    counted = sorted(
        {f for v in (observe or {}).values() if isinstance(v, list) for f in v} & set(COUNTED)
    )
    return " and ".join(counted) if counted else None

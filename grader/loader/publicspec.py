"""A spec as students get it: the teacher's exercise.yaml without its hidden checks and, in a
release, without reference code.

The hidden checks' entries are cut out of the text (with the comment lines just above each), so
the rest stays as the teacher wrote it, and `hidden_checks: N` says how many the teacher keeps
(the student's report shows the number). A release also cuts the `references` and every
scenario `reference`, and names the file of recorded examples that replaces them
(`recorded: recorded.pickle`, grader.grading.recorded). The cut text must load to exactly the teacher's data
without those entries; where it does not (a spec in flow style, say), the data is written out
as plain YAML instead.
"""

from __future__ import annotations

import yaml

KEY = "hidden_checks"
RECORDED = "recorded"
REFERENCES = "references"
"""The spec's reference expressions (top level) and a scenario check's reference function."""
REFERENCE = "reference"
STARTER = "starter_digest"
"""The starter's code digest as released (grader.submissions.answer): in the students' copy the
starter's file becomes the student's own, so what "left as released" means is written here."""


def public(text: str, recorded: str | None = None, starter: str | None = None) -> tuple[str, int]:
    """(the spec's text without hidden checks, how many were removed). With `recorded` (the
    name of the file of recorded examples beside it, grader.grading.recorded), also without reference
    code: the top-level `references` and each check's `reference`, and `recorded: NAME` added.
    With `starter` (the starter's code digest), `starter_digest: DIGEST` added."""
    data = yaml.safe_load(text)
    checks = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(checks, list):
        return text, 0
    hidden = [i for i, c in enumerate(checks) if isinstance(c, dict) and c.get("hidden") is True]
    if not hidden and recorded is None and starter is None:
        return text, 0
    expected = dict(data)
    expected["checks"] = [c for i, c in enumerate(checks) if i not in hidden]
    if hidden:
        expected[KEY] = int(data.get(KEY) or 0) + len(hidden)
    if isinstance(data.get("hints"), list) and hidden:  # a hint may name the checks it helps with
        gone = {checks[i].get("id") for i in hidden}
        expected["hints"] = [_without(h, gone) for h in data["hints"]]
    if recorded is not None:
        expected.pop(REFERENCES, None)
        expected["checks"] = [
            {k: v for k, v in c.items() if k != REFERENCE} if isinstance(c, dict) else c
            for c in expected["checks"]
        ]
        expected[RECORDED] = recorded
    if starter is not None:
        expected[STARTER] = starter
    cut = _cut(text, hidden, expected.get(KEY), recorded, starter)
    if cut is not None and _loads(cut) == expected:
        return cut, len(hidden)
    return _dump(expected), len(hidden)


def _without(hint, gone: set) -> object:
    """A hint without the hidden checks among those it names (students never see them)."""
    if not (isinstance(hint, dict) and isinstance(hint.get("checks"), list)):
        return hint
    hint = dict(hint, checks=[c for c in hint["checks"] if c not in gone])
    if not hint["checks"]:
        del hint["checks"]
    return hint


def _loads(text: str):
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _cut(
    text: str, hidden: list[int], count: int | None, recorded: str | None, starter: str | None
) -> str | None:
    """The text with the hidden items' lines (and, with `recorded`, the reference code's)
    removed and the count set; None where the layout is not the usual block style."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    if not isinstance(root, yaml.MappingNode):
        return None
    seq = next((v for k, v in root.value if k.value == "checks"), None)
    if not isinstance(seq, yaml.SequenceNode) or seq.flow_style:
        return None
    if any(k.value in (KEY, RECORDED, STARTER) for k, _ in root.value):
        return None  # an existing count: rewritten by _dump, which keeps the data exact
    lines = text.splitlines(keepends=True)
    spans = [(seq.value[i].start_mark.line, _last_line(seq.value[i])) for i in hidden]
    if recorded is not None:
        pairs = [(k, v) for k, v in root.value if k.value == REFERENCES]
        for n, item in enumerate(seq.value):
            if n not in hidden and isinstance(item, yaml.MappingNode):
                pairs += [(k, v) for k, v in item.value if k.value == REFERENCE]
        spans += [(k.start_mark.line, _last_line(v)) for k, v in pairs]
    drop: set[int] = set()
    for first, last in spans:
        while first > 0 and lines[first - 1].strip().startswith("#"):
            first -= 1  # a comment just above an entry speaks of that entry
        drop.update(range(first, last + 1))
    kept = [line for n, line in enumerate(lines) if n not in drop]
    out = "".join(kept)
    if out and not out.endswith("\n"):
        out += "\n"
    if count is not None:
        out += (
            "# Checks your teacher runs when grading the class; they are not in this "
            "copy.\n" + f"{KEY}: {count}\n"
        )
    if recorded is not None:
        out += (
            "# The examples this copy grades with, and what the reference gave on them "
            "(python -m grader release).\n" + f"{RECORDED}: {recorded}\n"
        )
    if starter is not None:
        out += (
            "# The starter's code as released: left so, a file is not an answer "
            "(python -m grader release).\n" + f"{STARTER}: {starter}\n"
        )
    return out


def _last_line(node) -> int:
    """The last line holding any part of node. A block collection's own end mark lies at the
    next token (the next entry, after any comments), so it is read from its contents."""
    if isinstance(node, yaml.ScalarNode):
        end = node.end_mark  # a block scalar (|) ends at the start of the line after it
        return end.line - (1 if end.column == 0 and end.line > node.start_mark.line else 0)
    if node.flow_style:
        return node.end_mark.line
    parts = (
        node.value
        if isinstance(node, yaml.SequenceNode)
        else [part for pair in node.value for part in pair]
    )
    return max((_last_line(p) for p in parts), default=node.start_mark.line)


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _dump(data: dict) -> str:
    return (
        "# The teacher's spec without its hidden checks (python -m grader release).\n"
        + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    )

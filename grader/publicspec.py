"""A spec as students get it: the teacher's exercise.yaml without its hidden checks.

The hidden checks' entries are cut out of the text (with the comment lines just above each), so
the rest stays as the teacher wrote it, and `hidden_checks: N` says how many the teacher keeps
(the student's report shows the number). The cut text must load to exactly the teacher's data
without those entries; where it does not (a spec in flow style, say), the data is written out
as plain YAML instead.
"""

from __future__ import annotations

import yaml

KEY = "hidden_checks"


def public(text: str) -> tuple[str, int]:
    """(the spec's text without hidden checks, how many were removed)."""
    data = yaml.safe_load(text)
    checks = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(checks, list):
        return text, 0
    hidden = [i for i, c in enumerate(checks) if isinstance(c, dict) and c.get("hidden") is True]
    if not hidden:
        return text, 0
    expected = dict(data)
    expected["checks"] = [c for i, c in enumerate(checks) if i not in hidden]
    expected[KEY] = int(data.get(KEY) or 0) + len(hidden)
    if isinstance(data.get("hints"), list):  # a hint may name the checks it helps with
        gone = {checks[i].get("id") for i in hidden}
        expected["hints"] = [_without(h, gone) for h in data["hints"]]
    cut = _cut(text, hidden, expected[KEY])
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


def _cut(text: str, hidden: list[int], count: int) -> str | None:
    """The text with the hidden items' lines removed and the count set; None where the layout
    is not the usual block style."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    seq = next((v for k, v in root.value if k.value == "checks"), None)
    if not isinstance(seq, yaml.SequenceNode) or seq.flow_style:
        return None
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for i in hidden:
        item = seq.value[i]
        first, last = item.start_mark.line, _last_line(item)
        while first > 0 and lines[first - 1].strip().startswith("#"):
            first -= 1  # a comment just above an entry speaks of that entry
        drop.update(range(first, last + 1))
    kept = [line for n, line in enumerate(lines) if n not in drop]
    count_at = next((n for n, k in enumerate(root.value) if k[0].value == KEY), None)
    if count_at is not None:
        return None  # an existing count: rewritten by _dump, which keeps the data exact
    out = "".join(kept)
    if out and not out.endswith("\n"):
        out += "\n"
    return (out + "# Checks your teacher runs when grading the class; they are not in this "
                  "copy.\n" + f"{KEY}: {count}\n")


def _last_line(node) -> int:
    """The last line holding any part of node. A block collection's own end mark lies at the
    next token (the next entry, after any comments), so it is read from its contents."""
    if isinstance(node, yaml.ScalarNode):
        end = node.end_mark  # a block scalar (|) ends at the start of the line after it
        return end.line - (1 if end.column == 0 and end.line > node.start_mark.line else 0)
    if node.flow_style:
        return node.end_mark.line
    parts = node.value if isinstance(node, yaml.SequenceNode) else [
        part for pair in node.value for part in pair]
    return max((_last_line(p) for p in parts), default=node.start_mark.line)


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _dump(data: dict) -> str:
    return ("# The teacher's spec without its hidden checks (python -m grader release).\n"
            + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100))

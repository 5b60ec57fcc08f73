"""YAML that remembers where each value came from, and typed access that says where it failed.

Every mapping loads as a Node (a dict) and every list as a NodeList, each knowing its file and
the line of each of its entries, so a validation error reads
`exercises/x/exercise.yaml, line 14, checks[2].atol: expected a number, got 'tight'`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from grader.common.errors import SpecError

_MISSING = object()


class Node(dict):
    """A YAML mapping with its location; `path` is the key path from the file's root."""

    file: str = ""
    line: int | None = None
    path: str = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lines: dict = {}

    def where(self, key) -> int | None:
        return self.lines.get(key, self.line)

    def error(self, key, message: str) -> SpecError:
        return SpecError(self.file, self.where(key), _join(self.path, key), message)

    def get_typed(self, key: str, kinds, default=_MISSING, what: str | None = None):
        """The value at key, checked against kinds (a type or tuple of types)."""
        if key not in self:
            if default is _MISSING:
                raise SpecError(
                    self.file, self.line, _join(self.path, key), f"missing; add `{key}:` here"
                )
            return default
        value = self[key]
        if kinds is float:
            kinds, what = (int, float), what or "a number"
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _tuple(kinds)):
            raise self.error(key, f"expected {what or _names(kinds)}, got {value!r}")
        return value

    def child(self, key: str, default=_MISSING) -> Node:
        value = self.get_typed(key, Node, default, "a mapping")
        return value

    def reject_unknown(self, allowed) -> None:
        for key in self:
            if key not in allowed:
                options = ", ".join(sorted(allowed))
                raise self.error(key, f"unknown key; expected one of: {options}")


class NodeList(list):
    file: str = ""
    line: int | None = None
    path: str = ""

    def __init__(self, *args):
        super().__init__(*args)
        self.lines: list = []

    def where(self, i: int) -> int | None:
        return self.lines[i] if i < len(self.lines) else self.line


def _tuple(kinds):
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _names(kinds) -> str:
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        bool: "true or false",
        list: "a list",
        Node: "a mapping",
        NodeList: "a list",
        dict: "a mapping",
    }
    return " or ".join(dict.fromkeys(names.get(k, k.__name__) for k in _tuple(kinds)))


def _join(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


class _Loader(yaml.SafeLoader):
    last_token = None
    """The token the parser took last: a quoted string that ran on over many lines (an unclosed
    quote, closed by the next quote further down) is where such a problem starts."""

    def get_token(self):
        token = super().get_token()
        self.last_token = token
        return token


def _mapping(loader: _Loader, node: yaml.MappingNode) -> Node:
    out = Node()
    out.file, out.line, out.lines = loader.name, node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise SpecError(
                loader.name, key_node.start_mark.line + 1, str(key), "duplicate key; keep only one"
            )
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = key_node.start_mark.line + 1
    return out


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> NodeList:
    out = NodeList(loader.construct_object(v, deep=True) for v in node.value)
    out.file, out.line = loader.name, node.start_mark.line + 1
    out.lines = [v.start_mark.line + 1 for v in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)

# libyaml's parser, where PyYAML has it, with the same constructors: about ten times faster on
# the course's specs (half a second of every run). Anything it cannot parse is parsed again by
# the pure-Python loader, so the errors authors see keep their wording.
_CLoader = None
if getattr(yaml, "__with_libyaml__", False):

    class _CLoader(yaml.CSafeLoader):  # type: ignore[no-redef]
        pass

    _CLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
    _CLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


def _parse_fast(text: str, name: str):
    """The document by libyaml, or None (no libyaml, or a YAML error it reports its own way)."""
    if _CLoader is None:
        return None
    loader = _CLoader(text)
    loader.name = name
    try:
        return loader.get_single_data()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()


def _set_paths(value, path: str) -> None:
    if isinstance(value, Node):
        value.path = path
        for key, item in value.items():
            _set_paths(item, _join(path, key))
    elif isinstance(value, NodeList):
        value.path = path
        for i, item in enumerate(value):
            _set_paths(item, _join(path, i))


_QUOTE_HINT = " (is a quote left open there?)"


def _where_it_starts(exc: yaml.MarkedYAMLError, last_token) -> tuple[int | None, str]:
    """The line where a YAML problem starts, and what it is. PyYAML marks where it noticed the
    problem (problem_mark) and what it was reading then (context_mark). For a quoted string or
    a key, the context's start is where the author must look (an unclosed quote on line 174 is
    noticed at 185, or at the end of the file); for a flow list or mapping, the problem's line,
    naming the line the list starts at; for a block mapping the context is the whole mapping
    and the problem's line is the one to fix, unless the token before it is a quoted string
    that ran on over several lines up to it (its quote was not closed where it should be)."""
    problem = exc.problem_mark.line + 1 if exc.problem_mark else None
    context = exc.context_mark.line + 1 if exc.context_mark else None
    what = exc.problem or "unreadable"
    said = exc.context or ""
    if context is not None and context != problem and said.startswith("while scanning"):
        hint = _QUOTE_HINT if "quoted scalar" in said else ""
        return context, f"{what} at line {problem}, {said} that starts here{hint}"
    if context is not None and context != problem and said.startswith("while parsing a flow"):
        return problem, f"{what}, {said} that starts at line {context}"
    token = last_token
    if (
        isinstance(token, yaml.ScalarToken)
        and token.style in ("'", '"')
        and token.start_mark.line + 1 < (problem or 0)
        and token.end_mark.line + 1 == problem
    ):
        return (
            token.start_mark.line + 1,
            f"{what} at line {problem}, after a quoted string that starts here and runs on "
            f"to line {problem}{_QUOTE_HINT}",
        )
    return problem or context, what


def load(path: Path, display: str | None = None) -> Node:
    """Load a YAML file whose top level is a mapping; errors name the file and line."""
    name = display or str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(name, None, "", f"cannot read: {exc.strerror}") from None
    data = _parse_fast(text, name)
    if data is not None:
        if not isinstance(data, Node):
            raise SpecError(name, 1, "", "the top level must be a mapping of keys to values")
        _set_paths(data, "")
        return data
    loader = _Loader(text)
    loader.name = name
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        line, message = _where_it_starts(exc, loader.last_token)
        raise SpecError(name, line, "", f"invalid YAML: {message}") from None
    finally:
        loader.dispose()
    if not isinstance(data, Node):
        raise SpecError(name, 1, "", "the top level must be a mapping of keys to values")
    _set_paths(data, "")
    return data

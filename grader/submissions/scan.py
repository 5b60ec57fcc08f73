"""Static scan of a student's file for forbidden torch APIs.

Only names that resolve to torch count: imports and aliases are followed, so `from torch import
autograd as ag; ag.grad(...)` is found, while a student's own class with a method named
`backward` is not flagged (the runtime trap in the worker catches real calls of
Tensor.backward). Tensor methods with torch-only names (`requires_grad_`, `retain_grad`) are
flagged on any receiver, and so is setting `requires_grad` to true.

A name counts by what it reaches, not how it is spelled: a path that resolves in torch to the
same object as a forbidden API (`torch._C._special.special_expit` is `torch.special.expit`) is
that API. A path into torch's private namespace (any `_name` part) is forbidden only where it
reaches a forbidden API, i.e. is an alias of one: the same object; a private home of a forbidden
module (`torch._functorch` is where `torch.func` lives, `torch._C._functorch` its core); a
private function of the same name (`torch._refs.sigmoid` under a `torch.sigmoid` rule); or one of
autograd's private entry points (PRIVATE_ALIASES: `torch._C._ImperativeEngine` runs backward,
`torch._make_dual` is forward-mode autograd). Every other private name is allowed: the fused
`torch._foreach_*` ops compute what their loops would, and no rule the student reads bans them.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass

from grader.sandbox.trap import FORWARD_AD, _home, _tree, matches, resolve

# Method names that user classes commonly define too: left to the runtime trap.
AMBIGUOUS_METHODS = {"backward", "forward", "apply", "grad"}


@dataclass(frozen=True)
class Finding:
    line: int
    function: str
    name: str
    """The torch API it resolves to, e.g. torch.autograd.grad."""


def _chain(node) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


class _Aliases:
    """Names bound to torch objects by imports and simple assignments."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def learn(self, stmt) -> None:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.name == "torch" or a.name.startswith("torch."):
                    if a.asname:
                        self.names[a.asname] = a.name
                    else:
                        self.names["torch"] = "torch"
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
            if stmt.module == "torch" or stmt.module.startswith("torch."):
                for a in stmt.names:
                    if a.name != "*":
                        self.names[a.asname or a.name] = f"{stmt.module}.{a.name}"
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            resolved = self.resolve(stmt.value)
            if isinstance(target, ast.Name) and resolved:
                self.names[target.id] = resolved

    def resolve(self, node) -> str | None:
        parts = _chain(node)
        if not parts or parts[0] not in self.names:
            return None
        return ".".join([self.names[parts[0]], *parts[1:]])


def _targets(tree: ast.Module, functions) -> list[tuple[str, ast.AST]]:
    if "*" in functions:
        return [("<file>", tree)]
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in functions:
            out.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                qual = f"{node.name}.{item.name}" if hasattr(item, "name") else None
                if qual in functions or (node.name in functions and hasattr(item, "body")):
                    out.append((qual, item))
    return out


def _helpers(tree: ast.Module, targets: list[tuple[str, ast.AST]]) -> list[tuple[str, ast.AST]]:
    """The module's own functions, lambdas and classes that the targets name, and those these
    name in turn: a helper does what its caller does (`_md = torch._make_dual` at module level,
    used in a helper that df calls, is df's use of it). Named at all is enough (called,
    passed, stored): the scan follows names, not calls."""
    defined: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    defined[target.id] = node.value
    seen = {id(root) for _, root in targets}
    todo = [root for _, root in targets]
    out = []
    while todo:
        root = todo.pop()
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                helper = defined.get(node.id)
                if helper is not None and id(helper) not in seen:
                    seen.add(id(helper))
                    todo.append(helper)
                    out.append((node.id, helper))
    return sorted(out, key=lambda item: item[1].lineno)


def scan(tree: ast.Module, functions, patterns) -> list[Finding]:
    """Uses of forbidden APIs (dotted prefixes such as torch.autograd) inside the functions
    and the module's own helpers they name (see _helpers)."""
    aliases = _Aliases()
    for stmt in tree.body:
        aliases.learn(stmt)
    method_names = {p.split(".")[-1] for p in patterns if p.startswith("torch.Tensor.")}
    method_names -= AMBIGUOUS_METHODS
    method_names.discard("requires_grad")  # an attribute: reading it is fine, setting it is not
    findings = []
    targets = _targets(tree, functions)
    if "*" not in functions:
        targets += _helpers(tree, targets)
    for fname, root in targets:
        local = _Aliases()
        local.names = dict(aliases.names)
        parents = {}
        for node in ast.walk(root):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
        for node in ast.walk(root):
            if isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign)):
                local.learn(node)
        for node in ast.walk(root):
            found = _check_node(node, parents, local, patterns, method_names)
            if found:
                findings.append(Finding(line=node.lineno, function=fname, name=found))
    unique: dict[tuple[int, str], Finding] = {}
    for f in findings:  # a target's own name first, then a helper's
        unique.setdefault((f.line, f.name), f)
    return sorted(unique.values(), key=lambda f: (f.line, f.name))


def private(path: str) -> bool:
    """A path into torch's private namespace (a part after `torch` that starts with `_` and
    is not a dunder such as __version__)."""
    return any(
        p.startswith("_") and not (p.startswith("__") and p.endswith("__"))
        for p in path.split(".")[1:]
    )


_ENGINE = ("torch.autograd.backward", "torch.autograd.grad", "torch.Tensor.backward")
PRIVATE_ALIASES: dict[str, tuple[str, ...]] = {
    **{path: (api,) for path, api in FORWARD_AD.items()},
    "torch._C._ImperativeEngine": _ENGINE,
    "torch._C._EngineBase": _ENGINE,
    "torch._C._autograd": ("torch.autograd",),
    "torch._C._functions": ("torch.autograd",),
    "torch._C._FunctionBase": ("torch.autograd.Function",),
    "torch._C._functorch": ("torch.func",),
    "torch._functorch": ("torch.func",),
}
"""Private spellings of public APIs that identity cannot show (a class, a C module): each
reaches the APIs it maps to (autograd's engine is what backward, grad and Tensor.backward run)."""

_targets_cache: dict[tuple, tuple[dict[int, str], dict[str, str], dict[str, str]]] = {}


def _forbidden(patterns) -> tuple[dict[int, str], dict[str, str], dict[str, str]]:
    """What the forbidden patterns name: identities of the objects (callables, not modules);
    the modules they cover, with the private ones defining what they export (torch.func's
    functions live in torch._functorch), and the files of those modules, each to its pattern;
    the functions' and classes' own names, each to its pattern."""
    key = tuple(sorted(patterns))
    if key not in _targets_cache:
        ids: dict[int, str] = {}
        homes: dict[str, str] = {}
        names: dict[str, str] = {}
        for pattern in key:
            found = resolve(pattern)
            if found is None:
                continue
            obj = found[2]
            if isinstance(obj, types.ModuleType):
                for module in _tree(pattern, obj):
                    homes.setdefault(module.__name__, pattern)
                    if getattr(module, "__file__", None):
                        homes.setdefault(module.__file__, pattern)
            elif callable(obj):
                names.setdefault(pattern.split(".")[-1], pattern)
                if not isinstance(obj, type):
                    ids.setdefault(id(obj), pattern)
        _targets_cache[key] = (ids, homes, names)
    return _targets_cache[key]


def _private_reach(path: str, patterns) -> str | None:
    """The forbidden API a private path is an alias of (see the module's docstring)."""
    for alias, apis in PRIVATE_ALIASES.items():
        if path == alias or path.startswith(alias + "."):
            hit = next((api for api in apis if matches(api, patterns)), None)
            if hit:
                return hit
    _, homes, names = _forbidden(patterns)
    if path.split(".")[-1] in names:
        return names[path.split(".")[-1]]
    try:
        found = resolve(path)
    except Exception:  # a torch attribute that raises on access
        return None
    if found is None:
        return None
    obj = found[2]
    home = obj.__name__ if isinstance(obj, types.ModuleType) else _home(obj)
    return homes.get(home) if isinstance(home, str) else None


def reaches(path: str, patterns) -> str | None:
    """The forbidden API a torch path reaches: by name, by being the same object, or by
    being a private alias of one (see the module's docstring)."""
    if matches(path, patterns):
        return path
    try:
        found = resolve(path)
    except Exception:  # a torch attribute that raises on access: judged by name only
        found = None
    api = _forbidden(patterns)[0].get(id(found[2])) if found is not None else None
    if api is not None and not private(path):
        return path
    if private(path):
        api = api or _private_reach(path, patterns)
        if api is not None:
            return f"{path} (private torch API: {api})"
    return None


def _check_node(node, parents, aliases: _Aliases, patterns, method_names) -> str | None:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [f"{node.module}.{a.name}" for a in node.names]
            if node.module
            else []
        )
        return next((r for r in map(lambda n: reaches(n, patterns), names) if r), None)
    if isinstance(node, (ast.Attribute, ast.Name)):
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            resolved = aliases.resolve(parent)
            if resolved and reaches(resolved, patterns):
                return None  # the longer chain reports it
        resolved = aliases.resolve(node)
        found = reaches(resolved, patterns) if resolved else None
        if found:
            return found
        if isinstance(node, ast.Attribute):
            if node.attr in method_names:
                return f"torch.Tensor.{node.attr}"
            if (
                node.attr == "requires_grad"
                and isinstance(node.ctx, ast.Store)
                and "torch.Tensor.requires_grad" in patterns
            ):
                return "torch.Tensor.requires_grad"
    if (
        isinstance(node, ast.keyword)
        and node.arg == "requires_grad"
        and "torch.Tensor.requires_grad" in patterns
    ):
        if not (isinstance(node.value, ast.Constant) and not node.value.value):
            return "torch.Tensor.requires_grad"
    return None

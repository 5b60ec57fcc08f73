"""The grader's layout, read from its own imports: stages import downwards only, no import
circle, no folder above about a dozen modules, and no module of the core names an exercise
(what one exercise needs lives in its plugin folder)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import COURSE

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "grader"
STAGES = [
    "common",
    "sandbox",
    "specs",
    "submissions",
    "checks",
    "loader",
    "outcomes",
    "grading",
    "report",
    "batch",
    "release",
    "authoring",
    "cli",
]
"""Bottom to top: a module may import its own stage and those before it (docs/architecture.md)."""
MAX_MODULES = 12


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(name: str) -> set[str]:
    """The grader modules `name` imports, at its top or inside functions."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(n) for t in ast.walk(tree) if _type_checking(t) for n in ast.walk(t)}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            candidates = [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        # `from grader.x import y`: y is a module or a name of grader.x; either way grader.x.
        found.update(c for c in candidates if c in MODULES and c != name)
    return found - {"grader"}


def stage(name: str) -> int | None:
    parts = name.split(".")
    return STAGES.index(parts[1]) if len(parts) > 1 and parts[1] in STAGES else None


def test_every_package_is_a_stage():
    packages = sorted(
        p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
    )
    assert packages == sorted(STAGES)
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]


def test_imports_go_down_the_stages():
    upward = []
    for name in MODULES:
        own = stage(name)
        if own is None:
            continue
        for target in imports(name):
            theirs = stage(target)
            if theirs is not None and theirs > own:
                upward.append(f"{name} -> {target}")
    assert upward == []


def test_no_import_circle():
    graph = {name: imports(name) for name in MODULES}
    state: dict[str, int] = {}
    circles = []

    def visit(name, trail):
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                circles.append(" -> ".join(trail[trail.index(target) :] + [target]))
            elif target not in state:
                visit(target, trail + [target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert circles == []


def test_the_direction_test_sees_an_upward_import(tmp_path, monkeypatch):
    """The two tests above can fail: an upward import and a circle are both found."""
    fake = {"grader.common.a": tmp_path / "a.py", "grader.cli.b": tmp_path / "b.py"}
    fake["grader.common.a"].write_text("def f():\n    from grader.cli import b\n")
    fake["grader.cli.b"].write_text("from grader.common import a\n")
    monkeypatch.setattr(f"{__name__}.MODULES", fake)
    assert imports("grader.common.a") == {"grader.cli.b"}
    assert imports("grader.cli.b") == {"grader.common.a"}
    assert stage("grader.common.a") < stage("grader.cli.b")


@pytest.mark.parametrize(
    "folder",
    sorted({p.parent for p in PACKAGE.rglob("*.py")}),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_folder_holds_more_than_a_dozen_modules(folder):
    modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= MAX_MODULES


def names_an_exercise(source: str, ids: list[str]) -> list[str]:
    """Where a module's text or code names an exercise: a string (docstrings included) that
    holds its id as a word, or a name, attribute, function or class that is its id. A keyword
    argument of torch's that shares a name with an exercise (retain_graph=, in code or in a
    message's text) names none."""
    words = re.compile(
        r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, ids)) + r")(?![A-Za-z0-9_=])"
    )
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"line {node.lineno}: {m}" for m in words.findall(node.value)]
        named = (
            node.id
            if isinstance(node, ast.Name)
            else node.attr
            if isinstance(node, ast.Attribute)
            else node.name
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))
            else None
        )
        if named in ids:
            found.append(f"line {node.lineno}: {named}")
    return found


def test_the_core_names_no_exercise():
    ids = COURSE
    assert len(ids) >= 16
    named = {
        str(p.relative_to(ROOT)): hits
        for p in PACKAGE.rglob("*.py")
        if (hits := names_an_exercise(p.read_text(encoding="utf-8"), ids))
    }
    assert named == {}


def test_naming_an_exercise_is_seen():
    ids = ["nan_debugging", "retain_graph"]
    assert names_an_exercise('"""see exercises/nan_debugging/"""\n', ids) == [
        "line 1: nan_debugging"
    ]
    assert names_an_exercise("def nan_debugging():\n    pass\n", ids) == ["line 1: nan_debugging"]
    assert names_an_exercise("x.backward(retain_graph=True)\n", ids) == []
    assert names_an_exercise('"""call backward(retain_graph=True) first"""\n', ids) == []
    assert names_an_exercise('"""as in retain_graph, twice"""\n', ids) == ["line 1: retain_graph"]

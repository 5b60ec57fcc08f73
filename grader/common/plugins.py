"""Exercise plugins imported as Python packages: the code one exercise needs beyond YAML.

An exercise whose checks need their own code keeps it in its folder, `exercises/<id>/plugin/`
(docs/architecture.md, "Exercise plugins"). That folder is a package imported under the name
`grader_plugins.<id>`, so its modules import each other relatively and its data classes pickle
under a name that is the same in the teacher's tree and in a students' release:

- `kinds.py`: `KINDS`, the check kinds only this exercise uses, and `DATA`, the data classes its
  examples and recorded values may hold (the grader side; grader.loader.plugins);
- `probes.py`: `PROBES`, what its worker does (op name -> probe), imported by the worker's
  template before any student code (grader.sandbox.probes.load_plugin);
- `teacher.py`: what computes its answers; the release never ships it (grader.release.build);
- any other module those import.

A process holds one plugin per exercise id: asked again for the same id from another folder (a
release beside the teacher's tree, a copy in a test), it keeps the first when the two hold the
same code and refuses two different ones.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import types
from pathlib import Path

NAMESPACE = "grader_plugins"
FOLDER = "plugin"
TEACHER = "teacher.py"
"""The plugin's module that computes answers: never in a students' release."""


class PluginError(Exception):
    """A plugin that cannot be imported, or two different plugins for one exercise id."""


def folder(exercise_dir: Path) -> Path | None:
    """The exercise's plugin folder, or None when it has none."""
    path = Path(exercise_dir) / FOLDER
    return path if (path / "__init__.py").is_file() else None


def shipped(plugin_dir: Path) -> list[Path]:
    """The plugin's files a students' release holds: every .py file but the teacher's."""
    return [
        p
        for p in sorted(Path(plugin_dir).rglob("*.py"))
        if p.name != TEACHER and "__pycache__" not in p.parts
    ]


def digest(plugin_dir: Path) -> str:
    """A hash of every .py file of the plugin, the teacher's included."""
    h = hashlib.sha256()
    for path in sorted(Path(plugin_dir).rglob("*.py")):
        if "__pycache__" not in path.parts:
            h.update(path.relative_to(plugin_dir).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _code(plugin_dir: Path) -> dict[str, bytes]:
    return {p.relative_to(plugin_dir).as_posix(): p.read_bytes() for p in shipped(plugin_dir)}


def package(exercise_id: str, plugin_dir: Path) -> types.ModuleType:
    """The plugin package grader_plugins.<exercise_id>, imported from plugin_dir once."""
    plugin_dir = Path(plugin_dir).resolve()
    name = f"{NAMESPACE}.{exercise_id}"
    loaded = sys.modules.get(name)
    if loaded is not None:
        first = Path(loaded.__path__[0])
        if first != plugin_dir and _code(first) != _code(plugin_dir):
            raise PluginError(
                f"two different plugins for exercise {exercise_id} in one run: "
                f"{first} and {plugin_dir}"
            )
        return loaded
    if NAMESPACE not in sys.modules:
        namespace = types.ModuleType(NAMESPACE, "Exercise plugins (grader.common.plugins).")
        namespace.__path__ = []
        sys.modules[NAMESPACE] = namespace
    spec = importlib.util.spec_from_file_location(
        name, plugin_dir / "__init__.py", submodule_search_locations=[str(plugin_dir)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def module(exercise_id: str, plugin_dir: Path, name: str) -> types.ModuleType | None:
    """The plugin's module `name` (kinds, probes), or None when the plugin has none."""
    package(exercise_id, plugin_dir)
    first = Path(sys.modules[f"{NAMESPACE}.{exercise_id}"].__path__[0])
    if not (first / f"{name}.py").is_file():
        return None
    return importlib.import_module(f"{NAMESPACE}.{exercise_id}.{name}")

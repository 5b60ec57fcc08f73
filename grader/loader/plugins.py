"""An exercise's plugin on the grader's side: its check kinds join the registry, and its data
classes join what the grader's pickles may hold (grader.common.plugins says what a plugin is).

The core names no exercise: a kind that exists for one exercise is found only because that
exercise's folder brings it, when its spec loads.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from grader.common import plugins
from grader.common.errors import SpecError

DATA: set[tuple[str, str]] = set()
"""(module, class name) of every loaded plugin's data classes (see grader.grading.examples)."""
_OWNER: dict[str, str] = {}
"""Kind name -> the exercise whose plugin brought it."""


def load(exercise_id: str, exercise_dir: Path, display: str) -> Path | None:
    """Import the exercise's plugin, if it has one, and register what it brings; returns its
    folder. A plugin that fails is the author's error, named with the plugin's own line."""
    where = plugins.folder(exercise_dir)
    if where is None:
        return None
    from grader.checks import KINDS  # torch: not for `merge` and the commands that need none

    try:
        kinds = plugins.module(exercise_id, where, "kinds")
    except plugins.PluginError as exc:
        raise SpecError(display, None, "plugin", str(exc)) from None
    except Exception as exc:  # the plugin's own code failed while it was imported
        raise SpecError(display, None, "plugin", _failure(exc, where)) from None
    for kind in getattr(kinds, "KINDS", ()) if kinds else ():
        if kind.name in KINDS and _OWNER.get(kind.name) != exercise_id:
            owner = _OWNER.get(kind.name)
            raise SpecError(
                display,
                None,
                "plugin",
                f"{where / 'kinds.py'}: kind {kind.name!r} exists already ("
                f"{'exercise ' + owner + chr(39) + 's plugin' if owner else 'a core kind'}"
                "); give it another name",
            )
        _OWNER[kind.name] = exercise_id
        KINDS[kind.name] = kind
    for cls in getattr(kinds, "DATA", ()) if kinds else ():
        DATA.add((cls.__module__, cls.__qualname__))
    return where


def _failure(exc: BaseException, where: Path) -> str:
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if Path(f.filename).resolve().is_relative_to(where.resolve())
    ]
    place = f"{frames[-1].filename}, line {frames[-1].lineno}: " if frames else f"{where}: "
    return f"{place}the plugin failed to import: {type(exc).__name__}: {exc}"

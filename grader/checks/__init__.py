"""The registry of check kinds: each module here defines one kind (see base.Kind)."""

from __future__ import annotations

import importlib
import pkgutil

from grader.checks.base import Kind

KINDS: dict[str, Kind] = {}

for _info in pkgutil.iter_modules(__path__):
    if _info.name != "base":
        _module = importlib.import_module(f"{__name__}.{_info.name}")
        for _kind in getattr(_module, "KINDS", ()):
            KINDS[_kind.name] = _kind
